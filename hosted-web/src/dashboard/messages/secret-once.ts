// A secret shown once (components/SecretOnce.tsx: a new API key, a webhook signing secret) in en/de/fr.
export const en = {
  'secret.copy': 'Copy',
  'secret.stored': 'I have stored it',
  'secret.copied': 'Copied to the clipboard.',
  'secret.copyFailed': 'This browser did not allow copying: the text is selected, copy it by hand.',
};
type Keys = keyof typeof en;

export const de: Record<Keys, string> = {
  'secret.copy': 'Kopieren',
  'secret.stored': 'Ich habe es gespeichert',
  'secret.copied': 'In die Zwischenablage kopiert.',
  'secret.copyFailed':
    'Dieser Browser hat das Kopieren nicht erlaubt: Der Text ist markiert, kopieren Sie ihn von Hand.',
};

export const fr: Record<Keys, string> = {
  'secret.copy': 'Copier',
  'secret.stored': 'Je l’ai enregistré',
  'secret.copied': 'Copié dans le presse-papiers.',
  'secret.copyFailed':
    'Ce navigateur n’a pas autorisé la copie\u00a0: le texte est sélectionné, copiez-le à la main.',
};
