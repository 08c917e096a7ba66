// The dashboard's language (issue 29), the signer page's machinery (src/i18n/index.ts) with the dashboard's
// own catalogue: the first of the browser's preferred languages we have, else English; the switcher in the top
// bar and on the sign-in card overrides it for this browser (localStorage). dt() reads the locale signal, so
// text rendered through it follows a switch without a reload. The shell, sign-in and invitation text is here;
// each translated screen's text lives in messages/<screen>.ts (README "Dashboard app" lists which).
import { createSignal } from 'solid-js';
import * as brandingText from './messages/branding-rp';
import * as envText from './messages/environment';
import * as errorsText from './messages/errors';
import * as keysText from './messages/keys-account';
import * as newText from './messages/new-session';
import * as resultsText from './messages/results';
import * as secretText from './messages/secret-once';
import * as detailText from './messages/session-detail';
import * as sessionsText from './messages/sessions';
import * as startText from './messages/start';
import * as teamText from './messages/team-catalog';
import * as webhooksText from './messages/webhooks';
import * as workflowsText from './messages/workflows';

export type DashLocale = 'en' | 'de' | 'fr';
export const DASH_LOCALE_NAMES: Record<DashLocale, string> = { en: 'English', de: 'Deutsch', fr: 'Français' };
const STORAGE_KEY = 'dashboard-locale';

const en = {
  'shell.brand': 'Verification dashboard',
  'shell.badge.sandbox': 'SANDBOX: test data',
  'shell.badge.production': 'PRODUCTION: live data',
  'shell.environment': 'Environment',
  'shell.sandbox': 'Sandbox',
  'shell.production': 'Production',
  'shell.skip': 'Skip to content',
  'shell.menu': 'Menu',
  'shell.language': 'Language',
  'shell.loading': 'Loading…',
  'nav.label': 'Dashboard',
  'nav.start': 'Start',
  'nav.team': 'Team and invitations',
  'nav.apiKeys': 'API keys',
  'nav.workflows': 'Workflows',
  'nav.sessions': 'Sessions',
  'nav.webhooks': 'Webhook endpoint',
  'nav.catalog': 'Route catalog',
  'nav.branding': 'Branding',
  'nav.relyingParty': 'Relying party',
  'nav.account': 'Your account',
  'nav.session': 'Session',
  'nav.workflow': 'Workflow',
  'signIn.product': 'Credential verification service',
  'signIn.title': 'Sign in to the dashboard',
  'signIn.passkey': 'Sign in with a passkey',
  'signIn.or': 'or get a one-time link by email',
  'signIn.email': 'Email address',
  'signIn.send': 'Email me a link',
  'signIn.sent':
    'If this address has an account, a sign-in link is on its way. It works once, for 15 minutes.',
  'signIn.noAccount':
    "No account yet? Accounts are made by invitation: ask an owner or admin of your business to invite you (Team and invitations). A new business gets its first invitation from the service's operator.",
  'invite.title': 'Accept your invitation',
  'invite.generic':
    "You were invited to a business's dashboard. Accepting creates your account and signs you in.",
  'invite.named':
    'You were invited to the dashboard of {business} as {role}. Accepting creates your account and signs you in.',
  'invite.accept': 'Accept invitation',
  'role.owner': 'its owner',
  'role.admin': 'an admin',
  'role.developer': 'a developer',
  'role.viewer': 'a viewer',
  'notFound.title': 'Page not found',
  'notFound.back': 'Go to the dashboard',
  ...startText.en,
  ...sessionsText.en,
  ...detailText.en,
  ...keysText.en,
  ...teamText.en,
  ...newText.en,
  ...envText.en,
  ...workflowsText.en,
  ...webhooksText.en,
  ...brandingText.en,
  ...secretText.en,
  ...errorsText.en,
  ...resultsText.en,
};
export type DashKey = keyof typeof en;

const de: Record<DashKey, string> = {
  'shell.brand': 'Verifizierungs-Dashboard',
  'shell.badge.sandbox': 'SANDBOX: Testdaten',
  'shell.badge.production': 'PRODUKTION: echte Daten',
  'shell.environment': 'Umgebung',
  'shell.sandbox': 'Sandbox',
  'shell.production': 'Produktion',
  'shell.skip': 'Zum Inhalt springen',
  'shell.menu': 'Menü',
  'shell.language': 'Sprache',
  'shell.loading': 'Wird geladen …',
  'nav.label': 'Dashboard',
  'nav.start': 'Start',
  'nav.team': 'Team und Einladungen',
  'nav.apiKeys': 'API-Schlüssel',
  'nav.workflows': 'Workflows',
  'nav.sessions': 'Sitzungen',
  'nav.webhooks': 'Webhook-Endpunkt',
  'nav.catalog': 'Routenkatalog',
  'nav.branding': 'Erscheinungsbild',
  'nav.relyingParty': 'Vertrauende Partei',
  'nav.account': 'Ihr Konto',
  'nav.session': 'Sitzung',
  'nav.workflow': 'Workflow',
  'signIn.product': 'Dienst zur Prüfung von Nachweisen',
  'signIn.title': 'Beim Dashboard anmelden',
  'signIn.passkey': 'Mit einem Passkey anmelden',
  'signIn.or': 'oder einen einmaligen Link per E-Mail erhalten',
  'signIn.email': 'E-Mail-Adresse',
  'signIn.send': 'Link per E-Mail senden',
  'signIn.sent':
    'Wenn es zu dieser Adresse ein Konto gibt, ist ein Anmeldelink unterwegs. Er gilt einmal, 15 Minuten lang.',
  'signIn.noAccount':
    'Noch kein Konto? Konten entstehen durch Einladung: Bitten Sie eine Inhaberin, einen Inhaber oder eine Admin-Person Ihres Unternehmens, Sie einzuladen (Team und Einladungen). Ein neues Unternehmen erhält seine erste Einladung vom Betreiber des Dienstes.',
  'invite.title': 'Einladung annehmen',
  'invite.generic':
    'Sie wurden zum Dashboard eines Unternehmens eingeladen. Mit dem Annehmen wird Ihr Konto angelegt und Sie sind angemeldet.',
  'invite.named':
    'Sie wurden zum Dashboard von {business} eingeladen, als {role}. Mit dem Annehmen wird Ihr Konto angelegt und Sie sind angemeldet.',
  'invite.accept': 'Einladung annehmen',
  'role.owner': 'Inhaber/in',
  'role.admin': 'Admin',
  'role.developer': 'Entwickler/in',
  'role.viewer': 'Betrachter/in',
  'notFound.title': 'Seite nicht gefunden',
  'notFound.back': 'Zum Dashboard',
  ...startText.de,
  ...sessionsText.de,
  ...detailText.de,
  ...keysText.de,
  ...teamText.de,
  ...newText.de,
  ...envText.de,
  ...workflowsText.de,
  ...webhooksText.de,
  ...brandingText.de,
  ...secretText.de,
  ...errorsText.de,
  ...resultsText.de,
};

const fr: Record<DashKey, string> = {
  'shell.brand': 'Tableau de bord de vérification',
  'shell.badge.sandbox': 'BAC À SABLE\u00a0: données de test',
  'shell.badge.production': 'PRODUCTION\u00a0: données réelles',
  'shell.environment': 'Environnement',
  'shell.sandbox': 'Bac à sable',
  'shell.production': 'Production',
  'shell.skip': 'Aller au contenu',
  'shell.menu': 'Menu',
  'shell.language': 'Langue',
  'shell.loading': 'Chargement…',
  'nav.label': 'Tableau de bord',
  'nav.start': 'Démarrer',
  'nav.team': 'Équipe et invitations',
  'nav.apiKeys': 'Clés d’API',
  'nav.workflows': 'Parcours',
  'nav.sessions': 'Sessions',
  'nav.webhooks': 'Point de terminaison webhook',
  'nav.catalog': 'Catalogue des routes',
  'nav.branding': 'Image de marque',
  'nav.relyingParty': 'Partie utilisatrice',
  'nav.account': 'Votre compte',
  'nav.session': 'Session',
  'nav.workflow': 'Parcours',
  'signIn.product': 'Service de vérification de justificatifs',
  'signIn.title': 'Se connecter au tableau de bord',
  'signIn.passkey': 'Se connecter avec une clé d’accès',
  'signIn.or': 'ou recevoir un lien à usage unique par e-mail',
  'signIn.email': 'Adresse e-mail',
  'signIn.send': 'M’envoyer un lien',
  'signIn.sent':
    'Si cette adresse a un compte, un lien de connexion est en route. Il fonctionne une fois, pendant 15 minutes.',
  'signIn.noAccount':
    'Pas encore de compte\u00a0? Les comptes sont créés sur invitation\u00a0: demandez à un propriétaire ou à un administrateur de votre entreprise de vous inviter (Équipe et invitations). Une nouvelle entreprise reçoit sa première invitation de l’opérateur du service.',
  'invite.title': 'Accepter votre invitation',
  'invite.generic':
    'Vous avez été invité au tableau de bord d’une entreprise. Accepter crée votre compte et vous connecte.',
  'invite.named':
    'Vous avez été invité au tableau de bord de {business} en tant que {role}. Accepter crée votre compte et vous connecte.',
  'invite.accept': 'Accepter l’invitation',
  'role.owner': 'propriétaire',
  'role.admin': 'administrateur',
  'role.developer': 'développeur',
  'role.viewer': 'lecteur',
  'notFound.title': 'Page introuvable',
  'notFound.back': 'Aller au tableau de bord',
  ...startText.fr,
  ...sessionsText.fr,
  ...detailText.fr,
  ...keysText.fr,
  ...teamText.fr,
  ...newText.fr,
  ...envText.fr,
  ...workflowsText.fr,
  ...webhooksText.fr,
  ...brandingText.fr,
  ...secretText.fr,
  ...errorsText.fr,
  ...resultsText.fr,
};

/** Every language's catalogue (test/unit/dashboard-i18n.test.ts checks them against English). */
export const CATALOGUES: Record<DashLocale, Record<DashKey, string>> = { en, de, fr };
const isLocale = (v: unknown): v is DashLocale => typeof v === 'string' && v in CATALOGUES;

/** The first supported language among the browser's preferences ("de-AT" counts as "de"). */
export function pickDashLocale(preferred: readonly string[]): DashLocale {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
}

function initial(): DashLocale {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (isLocale(stored)) return stored;
  } catch {
    // storage blocked: the browser's preference still applies
  }
  return pickDashLocale(navigator.languages?.length ? navigator.languages : [navigator.language ?? 'en']);
}

const [dashLocale, setSignal] = createSignal<DashLocale>(initial());
document.documentElement.lang = dashLocale();

export { dashLocale };

export function setDashLocale(next: DashLocale): void {
  setSignal(next);
  document.documentElement.lang = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // not remembered; the choice holds for this page view
  }
}

/** The message for key in the current language, {name} placeholders filled from vars. */
export function dt(key: DashKey, vars?: Record<string, string>): string {
  const text = CATALOGUES[dashLocale()][key] ?? en[key];
  return vars ? text.replace(/\{(\w+)\}/g, (m, n: string) => vars[n] ?? m) : text;
}
