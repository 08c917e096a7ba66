// The dashboard's sign-in email in the language of the person who asked for it (issue 29): the first of the
// request's Accept-Language tags we have (en, de, fr; "de-AT" counts as "de"), else English. The dashboard sends
// its chosen language as Accept-Language. English is byte-identical to the mail before issue 29.
export type MailLang = 'en' | 'de' | 'fr';

/** The first supported language of an Accept-Language header, in the order given (q-values are not re-sorted). */
export function mailLang(acceptLanguage: unknown): MailLang {
  if (typeof acceptLanguage !== 'string') return 'en';
  for (const part of acceptLanguage.slice(0, 200).split(',')) {
    const base = part.split(';')[0]?.trim().toLowerCase().split('-')[0];
    if (base === 'en' || base === 'de' || base === 'fr') return base;
  }
  return 'en';
}

export function signInMail(lang: MailLang, name: string, link: string): { subject: string; text: string } {
  switch (lang) {
    case 'de':
      return {
        subject: `Ihr Anmeldelink für ${name}`,
        text: `Öffnen Sie diesen Link innerhalb von 15 Minuten, um sich beim Dashboard von ${name} anzumelden:\n\n${link}\n\nWenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.`,
      };
    case 'fr':
      return {
        subject: `Votre lien de connexion pour ${name}`,
        text: `Ouvrez ce lien dans les 15 minutes pour vous connecter au tableau de bord de ${name}\u00a0:\n\n${link}\n\nSi vous ne l’avez pas demandé, ignorez cet e-mail.`,
      };
    default:
      return {
        subject: `Your sign-in link for ${name}`,
        text: `Open this link within 15 minutes to sign in to the dashboard of ${name}:\n\n${link}\n\nIf you did not ask for it, ignore this email.`,
      };
  }
}
