/**
 * Words of other languages for the words MCP tools use most, so that a request in German, French,
 * Spanish, Italian or Portuguese meets English descriptions. The English words are the meaningful
 * ones among the 260 most frequent in MSC-Bench's tool names and descriptions (chosen by count, not
 * by any request); each line is `english: German | French | Spanish | Italian | Portuguese`, the
 * forms a request uses (infinitive, imperative, plural). Also the languages' articles and particles,
 * which say nothing about a tool. A foreign word that is also an English word is left out.
 */
import { terms } from "./text.ts";

const LINES = `
get: hole holen | obtenir obtiens | obtener obtén | ottieni ottenere | obter obtenha
retrieve: abrufen abrufe | récupérer récupère | recuperar recupera | recupera recuperare | recuperar recupere
data: daten | données | datos | dati | dados
list: liste auflisten | lister liste | listar lista | elenca elencare elenco | listar lista
name: namen | nom | nombre | nome | nome
create: erstelle erstellen anlegen lege | créer crée | crear crea | crea creare | criar crie
search: suche suchen durchsuche | chercher cherche rechercher recherche | buscar busca | cerca cercare | procurar procure pesquisar
find: finde finden | trouver trouve | encontrar encuentra | trova trovare | encontrar encontre
information: informationen auskunft | informations renseignements | información | informazioni | informação informações
generate: erzeuge erzeugen generiere | générer génère | generar genera | genera generare | gerar gere
manage: verwalte verwalten | gérer gère | gestionar gestiona | gestisci gestire | gerenciar gerencie
file: datei dateien | fichier fichiers | archivo archivos fichero | file | arquivo arquivos
folder: ordner verzeichnis | dossier dossiers répertoire | carpeta carpetas directorio | cartella cartelle | pasta pastas diretório
project: projekt | projet | proyecto | progetto | projeto
result: ergebnis ergebnisse | résultat résultats | resultado resultados | risultato risultati | resultado resultados
analyze: analysiere analysieren | analyser analyse | analizar analiza | analizza analizzare | analisar analise
text: texte | texte | texto | testo | texto
time: zeit uhrzeit | heure temps | hora tiempo | ora | hora
date: datum | jour | fecha | giorno | dia
new: neu neue neuen | nouveau nouvelle | nuevo nueva | nuovo nuova | novo nova
web: internet webseite | internet | internet | internet | internet
page: seite | page | página | pagina | página
status: zustand | état | estado | stato | estado
extract: extrahiere extrahieren | extraire extrais | extraer extrae | estrai estrarre | extrair extraia
update: aktualisiere aktualisieren | mettre jour | actualizar actualiza | aggiorna aggiornare | atualizar atualize
format: formatiere formatieren | formater | formatear formato | formatta formato | formatar formato
run: starte ausführen führe | exécuter exécute lancer lance | ejecutar ejecuta | esegui eseguire | executar execute
delete: lösche löschen entferne | supprimer supprime effacer efface | borrar borra eliminar elimina | elimina cancella | apagar apague
remove: entferne entfernen | enlever enlève retirer | quitar quita | rimuovi rimuovere | remover remova
change: ändere ändern bearbeite | changer modifier modifie | cambiar cambia modificar modifica | cambia modifica | mudar alterar altere
add: hinzufügen füge | ajouter ajoute | añadir añade agregar agrega | aggiungi aggiungere | adicionar adicione
user: benutzer nutzer | utilisateur | usuario | utente | usuário
address: adresse anschrift | adresse | dirección | indirizzo | endereço
market: markt börse | marché bourse | mercado bolsa | mercato borsa | mercado bolsa
number: zahl nummer | nombre numéro | número | numero | número
image: bild bilder foto | image photo | imagen foto | immagine foto | imagem foto
current: aktuell aktuelle aktuellen | actuel actuelle | actual | attuale | atual
read: lies lesen | lire lis | leer lee | leggi leggere | ler leia
account: konto | compte | cuenta | conto | conta
document: dokument dokumente | document documents | documento documentos | documento | documento
open: öffne öffnen | ouvrir ouvre | abrir abre | apri aprire | abrir abra
language: sprache | langue | idioma lengua | lingua | idioma língua
check: prüfe prüfen überprüfe | vérifier vérifie | comprobar comprueba verificar | controlla verifica | verificar verifique
email: mail | courriel | correo | posta | correio
send: sende senden schicke schicken | envoyer envoie | enviar envía | invia inviare | enviar envie
save: speichere speichern | enregistrer enregistre sauvegarder | guardar guarda | salva salvare | salvar salve guardar
write: schreibe schreiben | écrire écris | escribir escribe | scrivi scrivere | escrever escreva
show: zeige zeigen | montrer montre afficher affiche | mostrar muestra | mostra mostrare | mostrar mostre
move: verschiebe verschieben | déplacer déplace | mover mueve | sposta spostare | mover mova
rename: umbenennen benenne | renommer renomme | renombrar renombra | rinomina | renomear renomeie
convert: konvertiere konvertieren umwandeln wandle | convertir convertis | convertir convierte | converti convertire | converter converta
title: titel | titre | título | titolo | título
table: tabelle | tableau | tabla | tabella | tabela
message: nachricht | message | mensaje | messaggio | mensagem
memory: gedächtnis speicher erinnerung | mémoire | memoria | memoria | memória
remember: merk merke merken erinnere | retiens souviens rappelle | recuerda recordar | ricorda ricordare | lembre lembrar
stock: aktie aktien | | acción acciones | azione azioni | ação ações
price: preis kurs | prix cours | precio | prezzo | preço
note: notiz notizen | note notes | nota notas | nota note | nota notas
size: größe | taille | tamaño | dimensione | tamanho
weather: wetter | météo temps | tiempo clima | meteo | clima
route: route weg | itinéraire trajet | ruta | percorso | rota
presentation: präsentation folien | présentation diapositives | presentación diapositivas | presentazione | apresentação slides
chart: diagramm | graphique | gráfico | grafico | gráfico
exchange: wechselkurs umrechnen | taux | cambio | cambio | câmbio
calculate: berechne berechnen rechne | calcule calculer | calcula calcular | calcola calcolare | calcule calcular
`;

/** Articles, pronouns and particles of those languages (none that is also an English word). */
export const FOREIGN_STOP_WORDS = (
  "der das den dem des ein eine einen einer eines und oder im mit von vom zum zur für auf ist sind mein meine meinen " +
  "mir ich du dass wie bitte les une du et ou dans pour sur avec mon ma mes est que qui moi svp el los las una y del " +
  "al para con por mis es lo gli di che mio mia um uma os dos em na com meu minha por favor"
).split(" ");

/** Each foreign term's English terms. */
export const FOREIGN: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const line of LINES.trim().split("\n")) {
    const [english, rest] = line.split(":");
    const targets = terms(english);
    for (const word of rest.split(/[|\s]+/)) {
      for (const term of terms(word)) {
        if (targets.includes(term)) continue;
        const set = map.get(term) ?? new Set<string>();
        for (const target of targets) set.add(target);
        map.set(term, set);
      }
    }
  }
  return new Map([...map].map(([term, set]) => [term, [...set]]));
})();
