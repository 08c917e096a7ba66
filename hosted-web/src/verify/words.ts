// Owns the words of the receipt verification page (/verify) in English, German and French. `service` is the
// host of this page's origin: the only service whose keys the page trusts.

export type VerifyLang = 'en' | 'de' | 'fr';
export const VERIFY_LANGS: VerifyLang[] = ['en', 'de', 'fr'];
export const LANG_NAMES: Record<VerifyLang, string> = { en: 'English', de: 'Deutsch', fr: 'Français' };

export interface VerifyWords {
  title: string;
  intro: (service: string) => string;
  choose: string;
  drop: string;
  privacy: string;
  checking: string;
  verified: (service: string) => string;
  verifiedNote: string;
  notIssued: (service: string) => string;
  notIssuedNote: string;
  namesOther: (origin: string) => string;
  unreadable: string;
  keysFailed: (service: string) => string;
  summary: (business: string, steps: number, total: number, date: string) => string;
  /** Before the summary of a file that did not verify: what it says is only its own claim. */
  fileSays: string;
  example: string;
  partial: string;
  checks: string;
  step: (n: number, primitive: string) => string;
  seal: string;
  file: string;
  ok: string;
  failed: string;
  legacySeal: string;
  another: string;
  language: string;
  /** ": " (French: " : "), between a check and its outcome. */
  colon: string;
  primitives: Record<string, string>;
  command: (origin: string) => string;
}

const en: VerifyWords = {
  title: 'Check a receipt',
  intro: (s) =>
    `Choose or drop a receipt PDF to check that ${s} issued it and that nobody changed it since. The check ` +
    `runs in this browser against the keys ${s} publishes.`,
  choose: 'Choose a receipt PDF',
  drop: 'or drop the file here',
  privacy: 'The file stays on this device: nothing is uploaded.',
  checking: 'Checking…',
  verified: (s) => `This receipt was issued by ${s} and has not been changed.`,
  verifiedNote: 'Every step’s record and the seal over the whole file match the keys this service publishes.',
  notIssued: (s) => `This receipt was not issued by ${s}, or it was changed after it was issued.`,
  notIssuedNote: 'Do not rely on what it says. The checks that failed are listed below.',
  namesOther: (o) => `The file names another service: ${o}. Only check it there if you know and trust it.`,
  unreadable:
    'This file is not a receipt that can be checked: it is not a PDF, it is damaged or cut short, or its attached record is missing.',
  keysFailed: (s) => `The keys of ${s} could not be loaded, so nothing was checked. Please try again later.`,
  summary: (b, n, t, d) => `${b ? `${b} · ` : ''}${n} of ${t} steps · made ${d}`,
  fileSays: 'The file says:',
  example: 'Example receipt: test data from a sandbox session.',
  partial: 'Partial receipt: not every step was completed.',
  checks: 'What was checked',
  step: (n, p) => `Step ${n}: ${p}`,
  seal: 'Seal over the whole file',
  file: 'The file',
  ok: 'matches',
  failed: 'failed',
  legacySeal:
    'Sealed with the service’s record key, as receipts were before the seal had a key of its own. Still valid.',
  another: 'Check another file',
  language: 'Language',
  colon: ': ',
  primitives: {
    identify: 'identity',
    age_verify: 'age check',
    sign: 'signature',
    attestation: 'approval of terms',
  },
  command: (o) => `Without a browser: verify-receipt receipt.pdf --service ${o}`,
};

const de: VerifyWords = {
  title: 'Beleg prüfen',
  intro: (s) =>
    `Wählen Sie einen Beleg (PDF) aus oder legen Sie ihn hier ab, um zu prüfen, dass ${s} ihn ausgestellt hat ` +
    `und dass er seither nicht verändert wurde. Die Prüfung läuft in diesem Browser mit den Schlüsseln, die ${s} ` +
    'veröffentlicht.',
  choose: 'Beleg (PDF) auswählen',
  drop: 'oder Datei hier ablegen',
  privacy: 'Die Datei bleibt auf diesem Gerät: Es wird nichts hochgeladen.',
  checking: 'Wird geprüft …',
  verified: (s) => `Dieser Beleg wurde von ${s} ausgestellt und nicht verändert.`,
  verifiedNote:
    'Die Aufzeichnung jedes Schritts und das Siegel über die ganze Datei passen zu den veröffentlichten Schlüsseln dieses Dienstes.',
  notIssued: (s) => `Dieser Beleg wurde nicht von ${s} ausgestellt oder nach der Ausstellung verändert.`,
  notIssuedNote: 'Verlassen Sie sich nicht auf seinen Inhalt. Die fehlgeschlagenen Prüfungen stehen unten.',
  namesOther: (o) =>
    `Die Datei nennt einen anderen Dienst: ${o}. Prüfen Sie sie nur dort, wenn Sie diesen Dienst kennen und ihm vertrauen.`,
  unreadable:
    'Diese Datei ist kein prüfbarer Beleg: Sie ist kein PDF, sie ist beschädigt oder unvollständig, oder die angehängte Aufzeichnung fehlt.',
  keysFailed: (s) =>
    `Die Schlüssel von ${s} konnten nicht geladen werden, daher wurde nichts geprüft. Bitte versuchen Sie es später erneut.`,
  summary: (b, n, t, d) => `${b ? `${b} · ` : ''}${n} von ${t} Schritten · erstellt am ${d}`,
  fileSays: 'Die Datei gibt an:',
  example: 'Beispielbeleg: Testdaten aus einer Sandbox-Sitzung.',
  partial: 'Teilbeleg: Nicht alle Schritte wurden abgeschlossen.',
  checks: 'Was geprüft wurde',
  step: (n, p) => `Schritt ${n}: ${p}`,
  seal: 'Siegel über die ganze Datei',
  file: 'Die Datei',
  ok: 'stimmt',
  failed: 'fehlgeschlagen',
  legacySeal:
    'Mit dem Aufzeichnungsschlüssel des Dienstes gesiegelt, wie Belege, bevor das Siegel einen eigenen Schlüssel hatte. Weiterhin gültig.',
  another: 'Andere Datei prüfen',
  language: 'Sprache',
  colon: ': ',
  primitives: {
    identify: 'Identität',
    age_verify: 'Altersprüfung',
    sign: 'Unterschrift',
    attestation: 'Zustimmung zu Bedingungen',
  },
  command: (o) => `Ohne Browser: verify-receipt receipt.pdf --service ${o}`,
};

const fr: VerifyWords = {
  title: 'Vérifier un reçu',
  intro: (s) =>
    `Choisissez ou déposez un reçu PDF pour vérifier que ${s} l’a émis et que personne ne l’a modifié depuis. ` +
    `La vérification se fait dans ce navigateur avec les clés que ${s} publie.`,
  choose: 'Choisir un reçu PDF',
  drop: 'ou déposez le fichier ici',
  privacy: 'Le fichier reste sur cet appareil : rien n’est envoyé.',
  checking: 'Vérification…',
  verified: (s) => `Ce reçu a été émis par ${s} et n’a pas été modifié.`,
  verifiedNote:
    'L’enregistrement de chaque étape et le sceau sur tout le fichier correspondent aux clés publiées par ce service.',
  notIssued: (s) => `Ce reçu n’a pas été émis par ${s}, ou il a été modifié après son émission.`,
  notIssuedNote: 'Ne vous fiez pas à son contenu. Les vérifications qui ont échoué sont listées ci-dessous.',
  namesOther: (o) =>
    `Le fichier indique un autre service : ${o}. Ne le vérifiez là-bas que si vous connaissez ce service et lui faites confiance.`,
  unreadable:
    'Ce fichier n’est pas un reçu vérifiable : ce n’est pas un PDF, il est endommagé ou tronqué, ou l’enregistrement joint manque.',
  keysFailed: (s) =>
    `Les clés de ${s} n’ont pas pu être chargées : rien n’a été vérifié. Veuillez réessayer plus tard.`,
  summary: (b, n, t, d) => `${b ? `${b} · ` : ''}${n} étape(s) sur ${t} · établi le ${d}`,
  fileSays: 'Le fichier indique :',
  example: 'Reçu d’exemple : données de test d’une session sandbox.',
  partial: 'Reçu partiel : toutes les étapes n’ont pas été effectuées.',
  checks: 'Ce qui a été vérifié',
  step: (n, p) => `Étape ${n} : ${p}`,
  seal: 'Sceau sur tout le fichier',
  file: 'Le fichier',
  ok: 'conforme',
  failed: 'échec',
  legacySeal:
    'Scellé avec la clé d’enregistrement du service, comme les reçus avant que le sceau ait sa propre clé. Toujours valable.',
  another: 'Vérifier un autre fichier',
  language: 'Langue',
  colon: ' : ',
  primitives: {
    identify: 'identité',
    age_verify: 'vérification de l’âge',
    sign: 'signature',
    attestation: 'acceptation des conditions',
  },
  command: (o) => `Sans navigateur : verify-receipt receipt.pdf --service ${o}`,
};

export const VERIFY_WORDS: Record<VerifyLang, VerifyWords> = { en, de, fr };

/** The first of the browser's languages we have words for ("de-AT" counts as "de"), else English. */
export function pickVerifyLang(preferred: readonly string[]): VerifyLang {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0] as VerifyLang;
    if (VERIFY_LANGS.includes(base)) return base;
  }
  return 'en';
}
