// The dashboard's words for errors (Screen.tsx ErrorNote, via errors.ts) in en/de/fr, and DASH_ERRORS: every
// server error code (ErrorCode, generated from server/src/common/errors.ts) to the message that words it, so a
// new code without words is a type error; de and fr are typed by the English keys, so a missing translation is
// one too. A code the dashboard never receives (the signer's wallet answers, the operator's imports) is mapped
// to the generic message on purpose, and ErrorNote shows the server's own detail beside it.
import type { ErrorCode } from '../../transport.generated';

export const en = {
  'error.generic': 'Something went wrong. Try again; if it keeps failing, tell support the code below.',
  'error.code': 'Code: {code}',
  'error.requestId': 'Request id: {id}',
  'error.retry': 'Try again',
  'error.unauthenticated': 'You are signed out. Sign in again to continue.',
  'error.dashboard_user_required': 'This needs a signed-in dashboard user.',
  'error.role_insufficient': 'Your role does not allow this in this environment.',
  'error.csrf_token_invalid': 'Your session changed in another tab. Reload the page and try again.',
  'error.invitation_invalid':
    'This invitation link is invalid, already used, revoked or expired. Ask for a new one.',
  'error.sign_in_link_invalid': 'This sign-in link is invalid, already used or expired. Request a new one.',
  'error.passkey_invalid': 'The passkey could not be verified. Try again or use an emailed link.',
  'error.email_in_use': 'This email address already has an account.',
  'error.validation_failed': 'Some input is not valid.',
  'error.not_found': 'Not found in this environment.',
  'error.rate_limited': 'Too many attempts. Wait a moment and try again.',
  'error.service_unavailable': 'The service is temporarily unavailable. Try again in a moment.',
  'error.network_error': 'The service cannot be reached. Check your connection.',
  'error.webhook_url_invalid':
    'This URL cannot receive webhooks: use https on a public host (sandbox also allows private hosts where enabled).',
  'error.passkey_cancelled': 'The passkey prompt was closed before it finished.',
  'error.workflow_not_found': 'This workflow does not exist in this environment.',
  'error.workflow_invalid': 'The workflow cannot be saved or published as it is: check each step.',
  'error.workflow_not_published': 'This workflow has no published revision yet.',
  'error.workflow_api_only':
    'This workflow is set to API-only access: its sessions are created with an API key. Untick the box and publish to create them here.',
  'error.webhook_endpoint_required': 'Save a webhook endpoint first: there is nowhere to send to yet.',
  'error.sandbox_only': 'This works in the sandbox only. Switch the environment to sandbox to use it.',
  'error.forbidden': 'You are not allowed to do this.',
  'error.internal_error':
    'Something went wrong on our side. Try again; if it keeps failing, tell support the code.',
  'error.branding_contrast_insufficient':
    'White button text on this accent colour is too hard to read (WCAG AA needs 4.5:1). Choose a darker colour.',
  'error.logo_type_unsupported':
    'The logo must be a PNG, JPEG or WebP image. SVG and other formats are not accepted.',
  'error.logo_too_large': 'The logo file is larger than 256 KiB. Export it smaller and try again.',
  'error.logo_dimensions_invalid': 'The logo must be 16 to 2048 pixels on each side.',
  'error.documents_required': 'This workflow signs documents: choose a PDF for each document field.',
  'error.unsupported_media_type':
    'A file is not of a type this document takes (a PDF). Choose the file again.',
  'error.payload_too_large': 'The upload is too large. Choose smaller files and try again.',
  'error.return_url_not_allowed': 'The return URL is not on an origin registered for this environment.',
  'error.session_state_conflict':
    'The session changed meanwhile (the signer went on, or it ended). The page shows where it stands now.',
  'error.session_expired': 'The session has expired; nothing more can be done with it.',
  'error.route_unavailable':
    'No credential route supports this workflow in this environment yet: see the route catalog.',
  'error.certificate_missing':
    'The route speaks for your business with a certificate that is not in place yet: see the relying party screen.',
  'error.cursor_invalid': 'This list position is no longer valid. Go back to the first page.',
};
type Keys = keyof typeof en;

export const de: Record<Keys, string> = {
  'error.generic':
    'Etwas ist schiefgelaufen. Versuchen Sie es noch einmal; wenn es weiter fehlschlägt, nennen Sie dem Support den Code unten.',
  'error.code': 'Code: {code}',
  'error.requestId': 'Anfrage-ID: {id}',
  'error.retry': 'Erneut versuchen',
  'error.unauthenticated': 'Sie sind abgemeldet. Melden Sie sich erneut an, um fortzufahren.',
  'error.dashboard_user_required': 'Dafür ist eine angemeldete Dashboard-Person nötig.',
  'error.role_insufficient': 'Ihre Rolle erlaubt das in dieser Umgebung nicht.',
  'error.csrf_token_invalid':
    'Ihre Anmeldung hat sich in einem anderen Tab geändert. Laden Sie die Seite neu und versuchen Sie es noch einmal.',
  'error.invitation_invalid':
    'Dieser Einladungslink ist ungültig, bereits benutzt, zurückgezogen oder abgelaufen. Bitten Sie um einen neuen.',
  'error.sign_in_link_invalid':
    'Dieser Anmeldelink ist ungültig, bereits benutzt oder abgelaufen. Fordern Sie einen neuen an.',
  'error.passkey_invalid':
    'Der Passkey konnte nicht geprüft werden. Versuchen Sie es noch einmal oder nutzen Sie einen Link per E-Mail.',
  'error.email_in_use': 'Zu dieser E-Mail-Adresse gibt es bereits ein Konto.',
  'error.validation_failed': 'Eine Eingabe ist nicht gültig.',
  'error.not_found': 'In dieser Umgebung nicht gefunden.',
  'error.rate_limited': 'Zu viele Versuche. Warten Sie einen Moment und versuchen Sie es noch einmal.',
  'error.service_unavailable':
    'Der Dienst ist vorübergehend nicht erreichbar. Versuchen Sie es gleich noch einmal.',
  'error.network_error': 'Der Dienst ist nicht erreichbar. Prüfen Sie Ihre Verbindung.',
  'error.webhook_url_invalid':
    'Diese URL kann keine Webhooks empfangen: Verwenden Sie https auf einem öffentlichen Host (in der Sandbox sind, wo freigeschaltet, auch private Hosts erlaubt).',
  'error.passkey_cancelled': 'Die Passkey-Abfrage wurde geschlossen, bevor sie fertig war.',
  'error.workflow_not_found': 'Diesen Workflow gibt es in dieser Umgebung nicht.',
  'error.workflow_invalid':
    'Der Workflow kann so nicht gespeichert oder veröffentlicht werden: Prüfen Sie jeden Schritt.',
  'error.workflow_not_published': 'Dieser Workflow hat noch keine veröffentlichte Revision.',
  'error.workflow_api_only':
    'Dieser Workflow ist nur für die API freigegeben: Seine Sitzungen werden mit einem API-Schlüssel angelegt. Entfernen Sie das Häkchen und veröffentlichen Sie, um sie hier anzulegen.',
  'error.webhook_endpoint_required':
    'Speichern Sie zuerst einen Webhook-Endpunkt: Es gibt noch kein Ziel für den Versand.',
  'error.sandbox_only':
    'Das geht nur in der Sandbox. Wechseln Sie die Umgebung zur Sandbox, um es zu nutzen.',
  'error.forbidden': 'Das dürfen Sie nicht.',
  'error.internal_error':
    'Bei uns ist etwas schiefgelaufen. Versuchen Sie es noch einmal; wenn es weiter fehlschlägt, nennen Sie dem Support den Code.',
  'error.branding_contrast_insufficient':
    'Weiße Schrift auf dieser Akzentfarbe ist schwer lesbar (WCAG AA verlangt 4,5:1). Wählen Sie eine dunklere Farbe.',
  'error.logo_type_unsupported':
    'Das Logo muss ein PNG-, JPEG- oder WebP-Bild sein. SVG und andere Formate werden nicht angenommen.',
  'error.logo_too_large':
    'Die Logodatei ist größer als 256 KiB. Exportieren Sie sie kleiner und versuchen Sie es noch einmal.',
  'error.logo_dimensions_invalid': 'Das Logo muss auf jeder Seite 16 bis 2048 Pixel groß sein.',
  'error.documents_required':
    'Dieser Workflow unterschreibt Dokumente: Wählen Sie für jedes Dokumentfeld ein PDF.',
  'error.unsupported_media_type':
    'Eine Datei hat nicht den Typ, den dieses Dokument annimmt (ein PDF). Wählen Sie die Datei erneut.',
  'error.payload_too_large':
    'Der Upload ist zu groß. Wählen Sie kleinere Dateien und versuchen Sie es noch einmal.',
  'error.return_url_not_allowed':
    'Die Rücksprung-URL liegt nicht auf einem für diese Umgebung eingetragenen Ursprung.',
  'error.session_state_conflict':
    'Die Sitzung hat sich inzwischen geändert (die Person hat weitergemacht, oder sie ist beendet). Die Seite zeigt den jetzigen Stand.',
  'error.session_expired': 'Die Sitzung ist abgelaufen; mit ihr lässt sich nichts mehr tun.',
  'error.route_unavailable':
    'Für diesen Workflow gibt es in dieser Umgebung noch keine Nachweisroute: Siehe Routenkatalog.',
  'error.certificate_missing':
    'Die Route spricht mit einem Zertifikat für Ihr Unternehmen, das noch nicht vorliegt: Siehe Vertrauende Partei.',
  'error.cursor_invalid': 'Diese Listenposition gilt nicht mehr. Gehen Sie zurück zur ersten Seite.',
};

export const fr: Record<Keys, string> = {
  'error.generic':
    'Un problème est survenu. Réessayez\u00a0; si cela échoue encore, donnez au support le code ci-dessous.',
  'error.code': 'Code\u00a0: {code}',
  'error.requestId': 'Identifiant de requête\u00a0: {id}',
  'error.retry': 'Réessayer',
  'error.unauthenticated': 'Vous êtes déconnecté. Reconnectez-vous pour continuer.',
  'error.dashboard_user_required': 'Il faut pour cela être connecté au tableau de bord.',
  'error.role_insufficient': 'Votre rôle ne le permet pas dans cet environnement.',
  'error.csrf_token_invalid': 'Votre session a changé dans un autre onglet. Rechargez la page et réessayez.',
  'error.invitation_invalid':
    'Ce lien d’invitation est invalide, déjà utilisé, révoqué ou expiré. Demandez-en un nouveau.',
  'error.sign_in_link_invalid':
    'Ce lien de connexion est invalide, déjà utilisé ou expiré. Demandez-en un nouveau.',
  'error.passkey_invalid':
    'La clé d’accès n’a pas pu être vérifiée. Réessayez ou utilisez un lien reçu par e-mail.',
  'error.email_in_use': 'Cette adresse e-mail a déjà un compte.',
  'error.validation_failed': 'Une saisie n’est pas valide.',
  'error.not_found': 'Introuvable dans cet environnement.',
  'error.rate_limited': 'Trop de tentatives. Attendez un instant et réessayez.',
  'error.service_unavailable': 'Le service est momentanément indisponible. Réessayez dans un instant.',
  'error.network_error': 'Le service est injoignable. Vérifiez votre connexion.',
  'error.webhook_url_invalid':
    'Cette URL ne peut pas recevoir de webhooks\u00a0: utilisez https sur un hôte public (le bac à sable accepte aussi des hôtes privés là où c’est activé).',
  'error.passkey_cancelled': 'La fenêtre de la clé d’accès a été fermée avant la fin.',
  'error.workflow_not_found': 'Ce parcours n’existe pas dans cet environnement.',
  'error.workflow_invalid':
    'Le parcours ne peut pas être enregistré ou publié en l’état\u00a0: vérifiez chaque étape.',
  'error.workflow_not_published': 'Ce parcours n’a pas encore de révision publiée.',
  'error.workflow_api_only':
    'Ce parcours est réservé à l’API\u00a0: ses sessions sont créées avec une clé d’API. Décochez la case et publiez pour les créer ici.',
  'error.webhook_endpoint_required':
    'Enregistrez d’abord un point de terminaison webhook\u00a0: il n’y a encore nulle part où envoyer.',
  'error.sandbox_only':
    'Cela ne fonctionne que dans le bac à sable. Passez à l’environnement bac à sable pour l’utiliser.',
  'error.forbidden': 'Vous n’êtes pas autorisé à faire cela.',
  'error.internal_error':
    'Un problème est survenu de notre côté. Réessayez\u00a0; si cela échoue encore, donnez le code au support.',
  'error.branding_contrast_insufficient':
    'Un texte blanc sur cette couleur d’accent est difficile à lire (WCAG AA exige 4,5:1). Choisissez une couleur plus foncée.',
  'error.logo_type_unsupported':
    'Le logo doit être une image PNG, JPEG ou WebP. Le SVG et les autres formats ne sont pas acceptés.',
  'error.logo_too_large': 'Le fichier du logo dépasse 256 Kio. Exportez-le plus petit et réessayez.',
  'error.logo_dimensions_invalid': 'Le logo doit mesurer de 16 à 2048 pixels de chaque côté.',
  'error.documents_required':
    'Ce parcours fait signer des documents\u00a0: choisissez un PDF pour chaque champ de document.',
  'error.unsupported_media_type':
    'Un fichier n’est pas d’un type accepté pour ce document (un PDF). Choisissez de nouveau le fichier.',
  'error.payload_too_large': 'L’envoi est trop volumineux. Choisissez des fichiers plus petits et réessayez.',
  'error.return_url_not_allowed':
    'L’URL de retour n’est pas sur une origine enregistrée pour cet environnement.',
  'error.session_state_conflict':
    'La session a changé entre-temps (la personne a continué, ou elle est terminée). La page montre où elle en est.',
  'error.session_expired': 'La session a expiré\u00a0; plus rien ne peut être fait avec elle.',
  'error.route_unavailable':
    'Aucune route de justificatif ne prend encore en charge ce parcours dans cet environnement\u00a0: voir le catalogue des routes.',
  'error.certificate_missing':
    'La route parle au nom de votre entreprise avec un certificat qui n’est pas encore en place\u00a0: voir l’écran Partie utilisatrice.',
  'error.cursor_invalid': 'Cette position dans la liste n’est plus valide. Revenez à la première page.',
};

/** Codes the dashboard makes itself, without a server answer (api.ts, the passkey prompt). */
export type DashErrorCode = 'network_error' | 'passkey_cancelled';

const GENERIC = 'error.generic';

/** Every code to the message that words it for the business. */
export const DASH_ERRORS = {
  unauthenticated: 'error.unauthenticated',
  forbidden: 'error.forbidden',
  not_found: 'error.not_found',
  validation_failed: 'error.validation_failed',
  invalid_json: GENERIC,
  unsupported_media_type: 'error.unsupported_media_type',
  payload_too_large: 'error.payload_too_large',
  rate_limited: 'error.rate_limited',
  internal_error: 'error.internal_error',
  workflow_not_found: 'error.workflow_not_found',
  workflow_not_published: 'error.workflow_not_published',
  workflow_invalid: 'error.workflow_invalid',
  workflow_api_only: 'error.workflow_api_only',
  webhook_endpoint_required: 'error.webhook_endpoint_required',
  webhook_url_invalid: 'error.webhook_url_invalid',
  idempotency_in_progress: GENERIC,
  session_state_conflict: 'error.session_state_conflict',
  session_expired: 'error.session_expired',
  // the signer's browser and wallet: never answered to the dashboard
  session_bound_elsewhere: GENERIC,
  redirect_other_browser: GENERIC,
  step_window_expired: 'error.session_expired',
  documents_not_shown: GENERIC,
  documents_required: 'error.documents_required',
  route_unavailable: 'error.route_unavailable',
  protocol_not_offered: 'error.route_unavailable',
  presentation_malformed: GENERIC,
  request_not_found: GENERIC,
  gw_metadata_mismatch: GENERIC,
  wallet_metadata_invalid: GENERIC,
  issuer_untrusted: GENERIC,
  credential_signature_invalid: GENERIC,
  credential_type_invalid: GENERIC,
  credential_expired: GENERIC,
  credential_revoked: GENERIC,
  credential_suspended: GENERIC,
  status_check_failed: GENERIC,
  disclosure_invalid: GENERIC,
  key_binding_missing: GENERIC,
  key_binding_invalid: GENERIC,
  nonce_mismatch: GENERIC,
  audience_mismatch: GENERIC,
  key_binding_stale: GENERIC,
  sd_hash_mismatch: GENERIC,
  claims_missing: GENERIC,
  holder_mismatch: GENERIC,
  response_not_encrypted: GENERIC,
  response_decryption_failed: GENERIC,
  transaction_data_missing: GENERIC,
  transaction_data_mismatch: GENERIC,
  issuer_certificate_invalid_at_signing: GENERIC,
  device_signed_unauthorized: GENERIC,
  not_ready: 'error.service_unavailable',
  dashboard_user_required: 'error.dashboard_user_required',
  role_insufficient: 'error.role_insufficient',
  csrf_token_invalid: 'error.csrf_token_invalid',
  api_key_scope_missing: GENERIC,
  invitation_invalid: 'error.invitation_invalid',
  sign_in_link_invalid: 'error.sign_in_link_invalid',
  passkey_invalid: 'error.passkey_invalid',
  email_in_use: 'error.email_in_use',
  service_unavailable: 'error.service_unavailable',
  // the signer's record: never answered to the dashboard
  receipt_not_available: GENERIC,
  receipt_access_ended: GENERIC,
  receipt_access_closed: GENERIC,
  receipt_code_invalid: GENERIC,
  receipt_code_expired: GENERIC,
  receipt_code_too_soon: GENERIC,
  receipt_code_limit: GENERIC,
  sandbox_only: 'error.sandbox_only',
  cursor_invalid: 'error.cursor_invalid',
  return_url_not_allowed: 'error.return_url_not_allowed',
  branding_contrast_insufficient: 'error.branding_contrast_insufficient',
  logo_type_unsupported: 'error.logo_type_unsupported',
  logo_too_large: 'error.logo_too_large',
  logo_dimensions_invalid: 'error.logo_dimensions_invalid',
  // certificates the operator imports (pnpm operator): the server's detail says what is wrong
  access_chain_invalid: GENERIC,
  access_chain_key_mismatch: GENERIC,
  access_chain_key_usage: GENERIC,
  access_chain_host_mismatch: GENERIC,
  access_chain_not_current: GENERIC,
  access_chain_already_imported: GENERIC,
  access_certificate_missing: 'error.certificate_missing',
  reader_cert_chain_invalid: GENERIC,
  reader_cert_key_mismatch: GENERIC,
  reader_cert_domain_mismatch: GENERIC,
  business_certificate_missing: 'error.certificate_missing',
  registration_certificate_missing: 'error.certificate_missing',
  reader_cert_expired: GENERIC,
  reader_cert_not_yet_valid: GENERIC,
  reader_cert_already_imported: GENERIC,
  verifier_info_mismatch: GENERIC,
  verifier_info_invalid: GENERIC,
  registration_cert_invalid: GENERIC,
  registration_cert_typ: GENERIC,
  registration_cert_untrusted: GENERIC,
  registration_cert_expired: GENERIC,
  registration_cert_client_mismatch: GENERIC,
  registration_cert_business_mismatch: GENERIC,
  network_error: 'error.network_error',
  passkey_cancelled: 'error.passkey_cancelled',
} as const satisfies Record<ErrorCode | DashErrorCode, Keys>;

export const DASH_GENERIC_ERROR = GENERIC;
