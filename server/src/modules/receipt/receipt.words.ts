// Owns the words of the receipt page in the signer's language (en/de/fr, as the hosted page) and how it writes
// times: local time with the zone, in the zone the signer's browser reported. What the page says is part of the
// sealed file (ADR 0027), never of the signed audit data, so a wording change here breaks no saved receipt.
import type { Primitive } from '../workflow/primitives/step';

export type ReceiptLang = 'en' | 'de' | 'fr';
export const RECEIPT_LANGS: readonly ReceiptLang[] = ['en', 'de', 'fr'];

/** How the page is written: language and IANA time zone (from the hosted page; default en, UTC). */
export interface ReceiptPresentation {
  lang: ReceiptLang;
  time_zone: string;
}

export const DEFAULT_PRESENTATION: ReceiptPresentation = { lang: 'en', time_zone: 'UTC' };

/** A presentation from untrusted query values: anything unknown falls back to the default, never an error. */
export function presentationOf(lang: unknown, timeZone: unknown): ReceiptPresentation {
  const l = RECEIPT_LANGS.find((x) => x === lang) ?? DEFAULT_PRESENTATION.lang;
  let tz = DEFAULT_PRESENTATION.time_zone;
  if (typeof timeZone === 'string' && timeZone.length <= 64) {
    try {
      new Intl.DateTimeFormat('en', { timeZone });
      tz = timeZone;
    } catch {
      // not an IANA zone this runtime knows: UTC
    }
  }
  return { lang: l, time_zone: tz };
}

/** "23 November 2026, 09:00 CET" in the language and zone of the page. */
export function localTime(iso: string | null | undefined, p: ReceiptPresentation): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(p.lang === 'en' ? 'en-GB' : p.lang, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: p.time_zone,
    timeZoneName: 'short',
  }).format(d);
}

interface Words {
  example: string;
  partial: string;
  exampleNote: string;
  partialNote: (done: number, total: number, status: string) => string;
  title: string;
  revision: string;
  started: string;
  ended: string;
  generated: string;
  statement: string;
  step: string;
  completed: string;
  /** A step whose workflow condition failed the session (a minor's age check): checked, not completed. */
  notCompleted: string;
  /** The step's name per primitive (every primitive of the registry: a new one is a compile error here). */
  primitive: Record<Primitive, string>;
  status: Record<string, string>;
  claim: Record<string, string>;
  over: (threshold: string, yes: boolean) => string;
  document: string;
  /** Between a label and its value: ": " (French: a no-break space before the colon). */
  colon: string;
  terms: string;
  technical: string;
  technicalNote: string;
  session: string;
  holderKey: string;
  /** Who did the step (ADR 0026 holder_binding): how it is bound, and to which step (1-based). */
  presentedBy: (by: 'first' | 'holder_key' | 'claims' | 'opted_out', step: number) => string;
  holderSignature: string;
  fullValueIn: string;
  auditId: string;
  auditDigest: string;
  signingKey: string;
  howToVerify: string;
  howToVerifyText: (origin: string, json: string) => string;
}

const en: Words = {
  example: 'EXAMPLE',
  partial: 'PARTIAL',
  exampleNote: 'Example receipt: a sandbox session with test data. It proves nothing about a real person.',
  partialNote: (done, total, status) =>
    `Partial receipt: ${done} of ${total} steps completed; the session is ${status}.`,
  title: 'Receipt',
  revision: 'revision',
  started: 'Started',
  ended: 'Ended',
  generated: 'Receipt generated',
  statement:
    'This receipt is a readable record of steps the service already verified and signed. It is not a new ' +
    "signature. Each step is backed by an audit record signed by the service; the service's seal over this " +
    'file shows that it was not edited. The technical details for checking it are on the last page.',
  step: 'Step',
  completed: 'Completed',
  notCompleted: "Not completed: checked, but the business's conditions for this step were not met",
  primitive: {
    identify: 'Identity',
    age_verify: 'Age check',
    sign: 'Signature on documents',
    attestation: 'Attestation',
  },
  status: {
    created: 'not started',
    in_progress: 'in progress',
    awaiting_decision: 'awaiting a decision',
    completed: 'completed',
    stopped: 'stopped',
    failed: 'failed',
    expired: 'expired',
  },
  claim: {
    given_name: 'Given name',
    family_name: 'Family name',
    birth_date: 'Date of birth',
    birthdate: 'Date of birth',
    nationality: 'Nationality',
    nationalities: 'Nationalities',
    address: 'Address',
    email: 'Email',
    phone_number: 'Phone number',
    document_number: 'Document number',
    issuing_country: 'Issuing country',
  },
  over: (n, yes) => `Over ${n}: ${yes ? 'yes' : 'no'}`,
  document: 'Document',
  colon: ': ',
  terms: 'Terms',
  technical: 'Technical details',
  technicalNote: 'For checking the receipt: identifiers, digests and signatures of each step.',
  session: 'Session',
  holderKey: 'Holder key thumbprint',
  presentedBy: (by, step) =>
    ({
      first: 'Shared in the first step, which sets whose verification this is',
      holder_key: `Shared by the same person as in step ${step} (confirmed by the same wallet)`,
      claims: `Shared by the same person as in step ${step} (another wallet; the same name and date of birth)`,
      opted_out: 'Anyone may complete this step: it is not tied to the person of the first step',
    })[by],
  holderSignature: 'Holder signature',
  fullValueIn: 'full value in',
  auditId: 'Audit id',
  auditDigest: 'Audit digest (SHA-256)',
  signingKey: 'Signing key (kid)',
  howToVerify: 'How to check this receipt',
  howToVerifyText: (origin, json) =>
    `Open ${origin}/verify and drop this file there: the check runs in your browser against the keys that ` +
    `service publishes, and nothing is uploaded. Make sure ${origin} is the service you used: keys inside ` +
    'the file, or at an address the file names, prove nothing. Or use the command-line tool: "verify-receipt ' +
    `receipt.pdf --service ${origin}". Both check every step's audit record and service_signature (the ` +
    `records are in the attached ${json}; openssl works too) and the service's seal over the whole file, so ` +
    'an edited page or attachment fails.',
};

const de: Words = {
  example: 'BEISPIEL',
  partial: 'TEILWEISE',
  exampleNote: 'Beispielbeleg: eine Sandbox-Sitzung mit Testdaten. Er beweist nichts über eine reale Person.',
  partialNote: (done, total, status) =>
    `Teilweiser Beleg: ${done} von ${total} Schritten abgeschlossen; die Sitzung ist ${status}.`,
  title: 'Beleg',
  revision: 'Version',
  started: 'Begonnen',
  ended: 'Beendet',
  generated: 'Beleg erstellt',
  statement:
    'Dieser Beleg ist eine lesbare Aufzeichnung von Schritten, die der Dienst bereits geprüft und signiert ' +
    'hat. Er ist keine neue Unterschrift. Jeder Schritt ist durch einen vom Dienst signierten Prüfdatensatz ' +
    'belegt; das Siegel des Dienstes über diese Datei zeigt, dass sie nicht verändert wurde. Die technischen ' +
    'Angaben zur Prüfung stehen auf der letzten Seite.',
  step: 'Schritt',
  completed: 'Abgeschlossen',
  notCompleted:
    'Nicht abgeschlossen: geprüft, aber die Bedingungen des Unternehmens für diesen Schritt sind nicht erfüllt',
  primitive: {
    identify: 'Identität',
    age_verify: 'Altersprüfung',
    sign: 'Unterschrift unter Dokumenten',
    attestation: 'Bestätigung',
  },
  status: {
    created: 'nicht begonnen',
    in_progress: 'in Bearbeitung',
    awaiting_decision: 'wartet auf eine Entscheidung',
    completed: 'abgeschlossen',
    stopped: 'abgebrochen',
    failed: 'fehlgeschlagen',
    expired: 'abgelaufen',
  },
  claim: {
    given_name: 'Vorname',
    family_name: 'Nachname',
    birth_date: 'Geburtsdatum',
    birthdate: 'Geburtsdatum',
    nationality: 'Staatsangehörigkeit',
    nationalities: 'Staatsangehörigkeiten',
    address: 'Anschrift',
    email: 'E-Mail',
    phone_number: 'Telefonnummer',
    document_number: 'Dokumentnummer',
    issuing_country: 'Ausstellungsstaat',
  },
  over: (n, yes) => `Über ${n}: ${yes ? 'ja' : 'nein'}`,
  document: 'Dokument',
  colon: ': ',
  terms: 'Text',
  technical: 'Technische Angaben',
  technicalNote: 'Zur Prüfung des Belegs: Kennungen, Prüfsummen und Signaturen jedes Schritts.',
  session: 'Sitzung',
  holderKey: 'Fingerabdruck des Inhaberschlüssels',
  presentedBy: (by, step) =>
    ({
      first: 'Im ersten Schritt geteilt; er legt fest, um wessen Verifizierung es geht',
      holder_key: `Von derselben Person geteilt wie in Schritt ${step} (von derselben Wallet bestätigt)`,
      claims: `Von derselben Person geteilt wie in Schritt ${step} (eine andere Wallet; gleicher Name und gleiches Geburtsdatum)`,
      opted_out:
        'Diesen Schritt darf jede Person abschließen: Er ist nicht an die Person des ersten Schritts gebunden',
    })[by],
  holderSignature: 'Signatur des Inhabers',
  fullValueIn: 'vollständig in',
  auditId: 'Prüfdatensatz',
  auditDigest: 'Prüfsumme (SHA-256)',
  signingKey: 'Signaturschlüssel (kid)',
  howToVerify: 'So prüfen Sie den Beleg',
  howToVerifyText: (origin, json) =>
    `Öffnen Sie ${origin}/verify und legen Sie diese Datei dort ab: Die Prüfung läuft in Ihrem Browser mit ` +
    `den Schlüsseln, die dieser Dienst veröffentlicht, und nichts wird hochgeladen. Achten Sie darauf, dass ` +
    `${origin} der Dienst ist, den Sie genutzt haben: Schlüssel in der Datei oder unter einer Adresse, die ` +
    'die Datei nennt, beweisen nichts. Oder mit dem Kommandozeilenwerkzeug: "verify-receipt receipt.pdf ' +
    `--service ${origin}". Beide prüfen jeden Prüfdatensatz mit seiner service_signature (die Datensätze ` +
    `stehen in der angehängten ${json}; auch mit openssl möglich) und das Siegel des Dienstes über die ganze ` +
    'Datei, sodass eine veränderte Seite oder Anlage auffällt.',
};

const fr: Words = {
  example: 'EXEMPLE',
  partial: 'PARTIEL',
  exampleNote:
    "Reçu d'exemple : une session de test (sandbox) avec des données fictives. Il ne prouve rien sur une " +
    'personne réelle.',
  partialNote: (done, total, status) =>
    `Reçu partiel : ${done} étape(s) sur ${total} terminée(s) ; état de la session : ${status}.`,
  title: 'Reçu',
  revision: 'version',
  started: 'Commencée',
  ended: 'Terminée',
  generated: 'Reçu établi',
  statement:
    'Ce reçu est un relevé lisible des étapes que le service a déjà vérifiées et signées. Ce n’est pas une ' +
    'nouvelle signature. Chaque étape est attestée par un enregistrement d’audit signé par le service ; le ' +
    'sceau du service sur ce fichier montre qu’il n’a pas été modifié. Les détails techniques pour le ' +
    'vérifier figurent sur la dernière page.',
  step: 'Étape',
  completed: 'Terminée',
  notCompleted:
    "Non terminée\u00a0: vérifiée, mais les conditions de l'entreprise pour cette étape ne sont pas remplies",
  primitive: {
    identify: 'Identité',
    age_verify: "Vérification de l'âge",
    sign: 'Signature de documents',
    attestation: 'Attestation',
  },
  status: {
    created: 'non commencée',
    in_progress: 'en cours',
    awaiting_decision: 'en attente d’une décision',
    completed: 'terminée',
    stopped: 'arrêtée',
    failed: 'échouée',
    expired: 'expirée',
  },
  claim: {
    given_name: 'Prénom',
    family_name: 'Nom',
    birth_date: 'Date de naissance',
    birthdate: 'Date de naissance',
    nationality: 'Nationalité',
    nationalities: 'Nationalités',
    address: 'Adresse',
    email: 'E-mail',
    phone_number: 'Numéro de téléphone',
    document_number: 'Numéro du document',
    issuing_country: 'Pays de délivrance',
  },
  over: (n, yes) => `Plus de ${n} ans : ${yes ? 'oui' : 'non'}`,
  document: 'Document',
  colon: '\u00a0: ',
  terms: 'Texte',
  technical: 'Détails techniques',
  technicalNote: 'Pour vérifier le reçu : identifiants, empreintes et signatures de chaque étape.',
  session: 'Session',
  holderKey: 'Empreinte de la clé du titulaire',
  presentedBy: (by, step) =>
    ({
      first: 'Partagé à la première étape, qui fixe à qui appartient cette vérification',
      holder_key: `Partagé par la même personne qu’à l’étape ${step} (confirmé par le même portefeuille)`,
      claims: `Partagé par la même personne qu’à l’étape ${step} (un autre portefeuille ; mêmes nom et date de naissance)`,
      opted_out:
        'N’importe qui peut effectuer cette étape : elle n’est pas liée à la personne de la première étape',
    })[by],
  holderSignature: 'Signature du titulaire',
  fullValueIn: 'valeur complète dans',
  auditId: "Enregistrement d'audit",
  auditDigest: 'Empreinte (SHA-256)',
  signingKey: 'Clé de signature (kid)',
  howToVerify: 'Comment vérifier ce reçu',
  howToVerifyText: (origin, json) =>
    `Ouvrez ${origin}/verify et déposez-y ce fichier : la vérification se fait dans votre navigateur avec ` +
    `les clés que ce service publie, et rien n’est envoyé. Assurez-vous que ${origin} est bien le service ` +
    'que vous avez utilisé : des clés contenues dans le fichier, ou à une adresse qu’il indique, ne prouvent ' +
    `rien. Ou avec l’outil en ligne de commande : « verify-receipt receipt.pdf --service ${origin} ». Les ` +
    'deux vérifient chaque enregistrement d’audit et sa service_signature (les enregistrements sont dans le ' +
    `fichier joint ${json} ; openssl convient aussi) et le sceau du service sur tout le fichier : une page ` +
    'ou une pièce jointe modifiée est détectée.',
};

export const RECEIPT_WORDS: Record<ReceiptLang, Words> = { en, de, fr };

/** A claim's name in words: the known ones translated, others "some_claim" -> "Some claim". */
export function claimLabel(name: string, w: Words): string {
  const known = w.claim[name];
  if (known) return known;
  const spaced = name.replace(/[_-]+/g, ' ').trim();
  return spaced ? spaced[0]?.toUpperCase() + spaced.slice(1) : name;
}

/**
 * The two emails of the receipt (code and emailed receipt) in the signer's language. `business` is the
 * business's display name the receipt shows; `until` a local time with the zone (localTime).
 */
export interface ReceiptEmailWords {
  codeSubject: (business: string, code: string) => string;
  codeText: (business: string, code: string) => string;
  receiptSubject: (business: string, partial: boolean) => string;
  receiptText: (a: { business: string; link: string; until: string | null }) => string;
}

const enEmail: ReceiptEmailWords = {
  codeSubject: (business, code) => `Your verification code for ${business}: ${code}`,
  codeText: (business, code) =>
    `Your code to receive your receipt from ${business} by email is ${code}.\n` +
    'It is valid for 10 minutes. If you did not ask for it, ignore this message.\n',
  receiptSubject: (business, partial) => `Your receipt from ${business}${partial ? ' (partial)' : ''}`,
  receiptText: ({ business, link, until }) =>
    `Attached is your receipt from ${business}.\n` +
    'The PDF is yours to keep: it stays valid and verifiable after online access ends.\n\n' +
    `Receipt page: ${link}\n` +
    (until
      ? `The page works until ${until} unless you close online access earlier.\n`
      : 'The page works until 48 hours after the session ends, unless you close online access earlier.\n'),
};

const deEmail: ReceiptEmailWords = {
  codeSubject: (business, code) => `Ihr Bestätigungscode für ${business}: ${code}`,
  codeText: (business, code) =>
    `Ihr Code, um Ihren Beleg von ${business} per E-Mail zu erhalten, lautet ${code}.\n` +
    'Er ist 10 Minuten gültig. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.\n',
  receiptSubject: (business, partial) => `Ihr Beleg von ${business}${partial ? ' (Teilbeleg)' : ''}`,
  receiptText: ({ business, link, until }) =>
    `Anbei Ihr Beleg von ${business}.\n` +
    'Die PDF-Datei gehört Ihnen: Sie bleibt gültig und prüfbar, auch nachdem der Online-Zugang endet.\n\n' +
    `Seite des Belegs: ${link}\n` +
    (until
      ? `Die Seite ist bis ${until} erreichbar, sofern Sie den Online-Zugang nicht früher schließen.\n`
      : 'Die Seite ist bis 48 Stunden nach dem Ende der Sitzung erreichbar, sofern Sie den Online-Zugang nicht früher schließen.\n'),
};

const frEmail: ReceiptEmailWords = {
  codeSubject: (business, code) => `Votre code de vérification pour ${business} : ${code}`,
  codeText: (business, code) =>
    `Votre code pour recevoir par e-mail votre reçu de ${business} est ${code}.\n` +
    "Il est valable 10 minutes. Si vous ne l'avez pas demandé, ignorez ce message.\n",
  receiptSubject: (business, partial) => `Votre reçu de ${business}${partial ? ' (partiel)' : ''}`,
  receiptText: ({ business, link, until }) =>
    `Vous trouverez ci-joint votre reçu de ${business}.\n` +
    "Le PDF est à vous : il reste valable et vérifiable après la fin de l'accès en ligne.\n\n" +
    `Page du reçu : ${link}\n` +
    (until
      ? `La page reste accessible jusqu'au ${until}, sauf si vous fermez l'accès en ligne avant.\n`
      : "La page reste accessible jusqu'à 48 heures après la fin de la session, sauf si vous fermez l'accès en ligne avant.\n"),
};

export const RECEIPT_EMAIL_WORDS: Record<ReceiptLang, ReceiptEmailWords> = {
  en: enEmail,
  de: deEmail,
  fr: frEmail,
};

/** The receipt page of an emailed link (/r/{token}): its words in the page's language. */
export interface ReceiptLinkPageWords {
  title: string;
  partial: string;
  example: string;
  stepsDone: (done: number, total: number) => string;
  download: string;
  worksUntil: (date: string) => string;
  worksUntilDefault: string;
  afterwards: string;
  language: string;
  unavailableTitle: string;
  closed: string;
  ended: string;
  invalid: string;
}

export const LANG_NAMES: Record<ReceiptLang, string> = { en: 'English', de: 'Deutsch', fr: 'Français' };

export const RECEIPT_LINK_PAGE_WORDS: Record<ReceiptLang, ReceiptLinkPageWords> = {
  en: {
    title: 'Your receipt',
    partial: '(partial)',
    example: '(example, sandbox)',
    stepsDone: (done, total) => `${done} of ${total} steps completed.`,
    download: 'Download receipt (PDF)',
    worksUntil: (date) => `This page works until ${date}`,
    worksUntilDefault: 'This page works until 48 hours after the session ends',
    afterwards: ', unless online access is closed. The PDF stays yours after that.',
    language: 'Language',
    unavailableTitle: 'Receipt unavailable',
    closed: 'Online access to this receipt was closed. A PDF you saved stays valid.',
    ended:
      'Online access to this receipt has ended (48 hours after the session ended). A PDF you saved stays valid.',
    invalid: 'This receipt link is not valid.',
  },
  de: {
    title: 'Ihr Beleg',
    partial: '(Teilbeleg)',
    example: '(Beispiel, Sandbox)',
    stepsDone: (done, total) => `${done} von ${total} Schritten abgeschlossen.`,
    download: 'Beleg herunterladen (PDF)',
    worksUntil: (date) => `Diese Seite funktioniert bis ${date}`,
    worksUntilDefault: 'Diese Seite funktioniert bis 48 Stunden nach dem Ende der Sitzung',
    afterwards: ', sofern der Online-Zugang nicht geschlossen wird. Das PDF bleibt danach Ihres.',
    language: 'Sprache',
    unavailableTitle: 'Beleg nicht verfügbar',
    closed: 'Der Online-Zugang zu diesem Beleg wurde geschlossen. Ein gespeichertes PDF bleibt gültig.',
    ended:
      'Der Online-Zugang zu diesem Beleg ist beendet (48 Stunden nach dem Ende der Sitzung). Ein gespeichertes PDF bleibt gültig.',
    invalid: 'Dieser Beleg-Link ist nicht gültig.',
  },
  fr: {
    title: 'Votre reçu',
    partial: '(partiel)',
    example: '(exemple, sandbox)',
    stepsDone: (done, total) => `${done} étape(s) sur ${total} terminée(s).`,
    download: 'Télécharger le reçu (PDF)',
    worksUntil: (date) => `Cette page fonctionne jusqu’au ${date}`,
    worksUntilDefault: 'Cette page fonctionne jusqu’à 48 heures après la fin de la session',
    afterwards: ', sauf si l’accès en ligne est fermé. Le PDF reste à vous ensuite.',
    language: 'Langue',
    unavailableTitle: 'Reçu indisponible',
    closed: 'L’accès en ligne à ce reçu a été fermé. Un PDF enregistré reste valable.',
    ended:
      'L’accès en ligne à ce reçu a pris fin (48 heures après la fin de la session). Un PDF enregistré reste valable.',
    invalid: 'Ce lien de reçu n’est pas valable.',
  },
};
