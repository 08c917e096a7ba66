// The environment in running text, in en/de/fr ("No workflows in sandbox yet", "… in <strong>sandbox</strong>"):
// `env.in.*` is the phrase with its preposition, `env.name.*` the bare word. English keeps the lower-case words
// the screens always wrote.
export const en = {
  'env.in.sandbox': 'in sandbox',
  'env.in.production': 'in production',
  'env.name.sandbox': 'sandbox',
  'env.name.production': 'production',
};
type Keys = keyof typeof en;

export const de: Record<Keys, string> = {
  'env.in.sandbox': 'in der Sandbox',
  'env.in.production': 'in der Produktion',
  'env.name.sandbox': 'Sandbox',
  'env.name.production': 'Produktion',
};

export const fr: Record<Keys, string> = {
  'env.in.sandbox': 'dans le bac à sable',
  'env.in.production': 'en production',
  'env.name.sandbox': 'bac à sable',
  'env.name.production': 'production',
};
