// The "New session" card's text (components/NewSession.tsx) in en/de/fr; de and fr are typed by the English
// keys, so a missing translation is a type error.
export const en = {
  'new.title': 'New session',
  'new.allApiOnly':
    'Every published workflow here is set to API-only access: its sessions come from your server (an API key). Untick “Sessions are created only through the API” and publish to create sessions here.',
  'new.publishFirst': 'Publish a workflow to create sessions here.',
  'new.of': 'Create a session of',
  'new.apiOnly': '{name} (API only)',
  'new.signsOne': 'This workflow signs one document: choose the PDF the person will read and sign for each.',
  'new.signsMany':
    'This workflow signs {n} documents: choose the PDF the person will read and sign for each.',
  'new.signingStep': 'Signing step {n}: ',
  'new.document': 'Document (PDF)',
  'new.documentOf': 'Document {i} of {n} (PDF)',
  'new.choosePdf': 'Choose a PDF for each of the {n} document field(s) before creating the session.',
  'new.create': 'Create session',
  'new.link': 'Link for the person (valid until {when})',
  'new.copied': 'Link copied',
  'new.copy': 'Copy link',
  'new.open': 'Open the hosted page',
  'new.anyone': 'Anyone with this link can open the session: send it only to the person it is meant for.',
};
type Keys = keyof typeof en;

export const de: Record<Keys, string> = {
  'new.title': 'Neue Sitzung',
  'new.allApiOnly':
    'Jeder veröffentlichte Workflow hier ist nur über die API nutzbar: Seine Sitzungen kommen von Ihrem Server (mit einem API-Schlüssel). Entfernen Sie den Haken bei „Sitzungen werden nur über die API angelegt“ und veröffentlichen Sie, um hier Sitzungen anzulegen.',
  'new.publishFirst': 'Veröffentlichen Sie einen Workflow, um hier Sitzungen anzulegen.',
  'new.of': 'Sitzung anlegen für',
  'new.apiOnly': '{name} (nur API)',
  'new.signsOne':
    'Dieser Workflow lässt ein Dokument unterschreiben: Wählen Sie das PDF, das die Person lesen und unterschreiben wird.',
  'new.signsMany':
    'Dieser Workflow lässt {n} Dokumente unterschreiben: Wählen Sie für jedes das PDF, das die Person lesen und unterschreiben wird.',
  'new.signingStep': 'Unterschriftsschritt {n}: ',
  'new.document': 'Dokument (PDF)',
  'new.documentOf': 'Dokument {i} von {n} (PDF)',
  'new.choosePdf': 'Wählen Sie für jedes der {n} Dokumentfelder ein PDF, bevor Sie die Sitzung anlegen.',
  'new.create': 'Sitzung anlegen',
  'new.link': 'Link für die Person (gültig bis {when})',
  'new.copied': 'Link kopiert',
  'new.copy': 'Link kopieren',
  'new.open': 'Gehostete Seite öffnen',
  'new.anyone':
    'Wer diesen Link hat, kann die Sitzung öffnen: Senden Sie ihn nur an die Person, für die er bestimmt ist.',
};

export const fr: Record<Keys, string> = {
  'new.title': 'Nouvelle session',
  'new.allApiOnly':
    'Chaque parcours publié ici est réservé à l’API\u00a0: ses sessions viennent de votre serveur (avec une clé d’API). Décochez «\u00a0Les sessions sont créées uniquement via l’API\u00a0» et publiez pour créer des sessions ici.',
  'new.publishFirst': 'Publiez un parcours pour créer des sessions ici.',
  'new.of': 'Créer une session du parcours',
  'new.apiOnly': '{name} (API uniquement)',
  'new.signsOne':
    'Ce parcours fait signer un document\u00a0: choisissez le PDF que la personne lira et signera.',
  'new.signsMany':
    'Ce parcours fait signer {n} documents\u00a0: choisissez pour chacun le PDF que la personne lira et signera.',
  'new.signingStep': 'Étape de signature {n}\u00a0: ',
  'new.document': 'Document (PDF)',
  'new.documentOf': 'Document {i} sur {n} (PDF)',
  'new.choosePdf': 'Choisissez un PDF pour chacun des {n} champs de document avant de créer la session.',
  'new.create': 'Créer la session',
  'new.link': 'Lien pour la personne (valable jusqu’au {when})',
  'new.copied': 'Lien copié',
  'new.copy': 'Copier le lien',
  'new.open': 'Ouvrir la page hébergée',
  'new.anyone':
    'Toute personne disposant de ce lien peut ouvrir la session\u00a0: ne l’envoyez qu’à la personne concernée.',
};
