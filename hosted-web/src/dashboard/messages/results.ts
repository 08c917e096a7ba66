// A session's results and timeline lines in en/de/fr (components/ResultCard.tsx, components/timeline-words.ts):
// de and fr are typed by the English keys, so a missing translation is a type error. FAILURE_WORDS words every
// code a session's failure or a refused wallet answer carries, keyed by the server's codes (ErrorCode) and the
// workflow's condition codes, so a refusal code without a sentence is a type error too.
import type { ConditionFailureReason } from '../../graphql/generated';
import type { ErrorCode } from '../../transport.generated';

export const en = {
  'result.step': 'Step {n}: {primitive}',
  'result.primitive.identify': 'Identify',
  'result.primitive.age_verify': 'Age check',
  'result.primitive.sign': 'Sign documents',
  'result.primitive.attestation': 'Attestation',
  'result.completed': 'Completed',
  'result.notCompleted': 'Not completed',
  'result.notCompletedText': 'Checked {when}, but a condition of this workflow failed the session.',
  'result.claims': 'Claims',
  'result.noClaims': 'None of the requested claims were shared.',
  'result.ageAtLeast': 'Age at least {n}',
  'result.yes': 'Yes',
  'result.no': 'No',
  'result.document': 'Document {n}',
  'result.download': 'Download the signed original ({name})',
  'result.termsHash': 'Terms hash (SHA-256)',
  'result.signatureKey': 'Signature key (thumbprint)',
  'result.presentedBy': 'Presented by',
  'result.by.first': 'The person this session is bound to (first step)',
  'result.by.holder_key': 'Same person as step {n}: same holder key',
  'result.by.claims': 'Same person as step {n}: another key, same name and birth date',
  'result.by.opted_out': 'Anyone: this step is not bound to the first step’s person (workflow opt-out)',
  'result.auditId': 'Audit id',
  'audit.loading': 'Loading the audit record…',
  'audit.title': 'Audit record',
  'audit.signedAt': 'Signed at',
  'audit.keyId': 'Key id',
  'audit.digest': 'Digest',
  'audit.previous': 'Previous record',
  'audit.none': 'none (first step)',
  'audit.resultDigest': 'Result digest',
  'audit.condition': 'Workflow condition',
  'audit.json': 'Signed record (JSON)',
  'audit.verify': 'Verify signature',
  'audit.verifying': 'Verifying…',
  'audit.cannotCheck': 'Could not check the signature: {error}',
  'audit.valid': 'Signature valid: signed by the service key {kid}; the record matches its digest.',
  'audit.invalid': 'Signature invalid: {reason}.',
  'timeline.which': 'condition {index} of step {n}',
  'timeline.whichNoStep': 'condition {index}',
  'timeline.failed': '{which}, so the session failed.',
  'timeline.skipped': '{which}, so the session went on at step {n}.',
  'timeline.completed': '{which}, so the session ended completed.',
  'timeline.answered': '{event}: answered {status}',
  'timeline.noAnswer': '{event}: no answer',
  'failure.unknown': 'The session failed for the reason the code names (see the error reference).',
  'failure.failed': 'The session failed.',
  'failure.age_requirement_not_met': 'The person is not old enough: the age check of this step was not met.',
  'failure.condition_not_met': 'A condition of this step failed the session.',
  'failure.nationality_not_accepted': 'The nationality on the credential is not one this workflow accepts.',
  'failure.document_not_accepted': 'The identity document is not one this workflow accepts.',
  'failure.session_expired': 'The session ran out of time before it was finished.',
  'failure.step_window_expired': 'The time for this step ran out before the person finished it.',
  'failure.issuer_untrusted': 'The credential came from an issuer this workflow does not trust.',
  'failure.credential_signature_invalid': 'The credential’s signature does not check out.',
  'failure.credential_type_invalid': 'The credential is not of a type this step accepts.',
  'failure.credential_expired': 'The credential had expired.',
  'failure.credential_revoked': 'The credential has been revoked by its issuer.',
  'failure.credential_suspended': 'The credential is suspended by its issuer.',
  'failure.status_check_failed': 'The credential’s status could not be checked.',
  'failure.issuer_certificate_invalid_at_signing':
    'The issuer signed the credential while its certificate was not valid.',
  'failure.holder_mismatch': 'The credential belongs to someone other than the person of the first step.',
  'failure.claims_missing': 'The wallet did not share every detail this step asks for.',
  'failure.disclosure_invalid': 'A detail the wallet shared does not match the credential.',
  'failure.presentation_malformed': 'The wallet’s answer could not be read.',
  'failure.request_not_found': 'The wallet answered a request that was already used or had run out.',
  'failure.nonce_mismatch': 'The wallet answered an older request.',
  'failure.audience_mismatch': 'The wallet’s answer was made for another verifier.',
  'failure.key_binding_invalid': 'The wallet’s proof of holding the credential does not check out.',
  'failure.key_binding_missing': 'The wallet did not prove it holds the credential.',
  'failure.key_binding_stale': 'The wallet’s proof was too old (or the device clock is off).',
  'failure.sd_hash_mismatch': 'The wallet’s proof does not cover what it shared.',
  'failure.transaction_data_missing': 'The wallet did not sign the documents or terms of this step.',
  'failure.transaction_data_mismatch': 'The wallet signed something other than the documents of this step.',
  'failure.device_signed_unauthorized': 'The credential may not sign documents or terms.',
  'failure.response_not_encrypted': 'The wallet’s answer was not encrypted as this request requires.',
  'failure.response_decryption_failed': 'The wallet’s answer was encrypted for another request.',
  'failure.verifier_info_mismatch':
    'The wallet refused the request: its registration certificate does not match the signer.',
  'failure.verifier_info_invalid':
    'The wallet refused the request: its registration certificate is not valid.',
};
type Keys = keyof typeof en;

export const de: Record<Keys, string> = {
  'result.step': 'Schritt {n}: {primitive}',
  'result.primitive.identify': 'Identifizierung',
  'result.primitive.age_verify': 'Altersprüfung',
  'result.primitive.sign': 'Dokumente unterschreiben',
  'result.primitive.attestation': 'Bestätigung',
  'result.completed': 'Abgeschlossen',
  'result.notCompleted': 'Nicht abgeschlossen',
  'result.notCompletedText':
    'Geprüft am {when}, aber eine Bedingung dieses Workflows hat die Sitzung scheitern lassen.',
  'result.claims': 'Angaben',
  'result.noClaims': 'Keine der angefragten Angaben wurde geteilt.',
  'result.ageAtLeast': 'Mindestens {n} Jahre alt',
  'result.yes': 'Ja',
  'result.no': 'Nein',
  'result.document': 'Dokument {n}',
  'result.download': 'Unterschriebenes Original herunterladen ({name})',
  'result.termsHash': 'Hash der Bedingungen (SHA-256)',
  'result.signatureKey': 'Signaturschlüssel (Fingerabdruck)',
  'result.presentedBy': 'Vorgelegt von',
  'result.by.first': 'Der Person, an die diese Sitzung gebunden ist (erster Schritt)',
  'result.by.holder_key': 'Derselben Person wie in Schritt {n}: derselbe Inhaberschlüssel',
  'result.by.claims':
    'Derselben Person wie in Schritt {n}: ein anderer Schlüssel, derselbe Name und dasselbe Geburtsdatum',
  'result.by.opted_out':
    'Beliebig: Dieser Schritt ist nicht an die Person des ersten Schritts gebunden (im Workflow abgewählt)',
  'result.auditId': 'Prüfprotokoll-ID',
  'audit.loading': 'Prüfprotokoll wird geladen …',
  'audit.title': 'Prüfprotokoll',
  'audit.signedAt': 'Signiert am',
  'audit.keyId': 'Schlüssel-ID',
  'audit.digest': 'Digest',
  'audit.previous': 'Vorheriges Protokoll',
  'audit.none': 'keines (erster Schritt)',
  'audit.resultDigest': 'Digest des Ergebnisses',
  'audit.condition': 'Workflow-Bedingung',
  'audit.json': 'Signiertes Protokoll (JSON)',
  'audit.verify': 'Signatur prüfen',
  'audit.verifying': 'Wird geprüft …',
  'audit.cannotCheck': 'Die Signatur konnte nicht geprüft werden: {error}',
  'audit.valid':
    'Signatur gültig: signiert mit dem Dienstschlüssel {kid}; das Protokoll stimmt mit seinem Digest überein.',
  'audit.invalid': 'Signatur ungültig: {reason}.',
  'timeline.which': 'Bedingung {index} von Schritt {n}',
  'timeline.whichNoStep': 'Bedingung {index}',
  'timeline.failed': '{which}, daher ist die Sitzung fehlgeschlagen.',
  'timeline.skipped': '{which}, daher ging die Sitzung bei Schritt {n} weiter.',
  'timeline.completed': '{which}, daher wurde die Sitzung abgeschlossen.',
  'timeline.answered': '{event}: Antwort {status}',
  'timeline.noAnswer': '{event}: keine Antwort',
  'failure.unknown':
    'Die Sitzung ist aus dem Grund fehlgeschlagen, den der Code nennt (siehe Fehlerreferenz).',
  'failure.failed': 'Die Sitzung ist fehlgeschlagen.',
  'failure.age_requirement_not_met':
    'Die Person ist nicht alt genug: Die Altersprüfung dieses Schritts ist nicht erfüllt.',
  'failure.condition_not_met': 'Eine Bedingung dieses Schritts hat die Sitzung scheitern lassen.',
  'failure.nationality_not_accepted':
    'Die Staatsangehörigkeit im Nachweis ist keine, die dieser Workflow annimmt.',
  'failure.document_not_accepted': 'Das Ausweisdokument ist keines, das dieser Workflow annimmt.',
  'failure.session_expired': 'Die Zeit der Sitzung lief ab, bevor sie beendet war.',
  'failure.step_window_expired': 'Die Zeit für diesen Schritt lief ab, bevor die Person ihn beendet hat.',
  'failure.issuer_untrusted': 'Der Nachweis stammt von einem Aussteller, dem dieser Workflow nicht vertraut.',
  'failure.credential_signature_invalid': 'Die Signatur des Nachweises ist nicht gültig.',
  'failure.credential_type_invalid': 'Der Nachweis ist von einer Art, die dieser Schritt nicht annimmt.',
  'failure.credential_expired': 'Der Nachweis war abgelaufen.',
  'failure.credential_revoked': 'Der Nachweis wurde von seinem Aussteller widerrufen.',
  'failure.credential_suspended': 'Der Nachweis ist von seinem Aussteller ausgesetzt.',
  'failure.status_check_failed': 'Der Status des Nachweises konnte nicht geprüft werden.',
  'failure.issuer_certificate_invalid_at_signing':
    'Der Aussteller hat den Nachweis signiert, als sein Zertifikat nicht gültig war.',
  'failure.holder_mismatch': 'Der Nachweis gehört jemand anderem als der Person des ersten Schritts.',
  'failure.claims_missing': 'Die Wallet hat nicht alle Angaben geteilt, die dieser Schritt anfragt.',
  'failure.disclosure_invalid': 'Eine geteilte Angabe passt nicht zum Nachweis.',
  'failure.presentation_malformed': 'Die Antwort der Wallet konnte nicht gelesen werden.',
  'failure.request_not_found':
    'Die Wallet hat auf eine Anfrage geantwortet, die schon benutzt oder abgelaufen war.',
  'failure.nonce_mismatch': 'Die Wallet hat auf eine ältere Anfrage geantwortet.',
  'failure.audience_mismatch': 'Die Antwort der Wallet war für eine andere prüfende Stelle bestimmt.',
  'failure.key_binding_invalid': 'Der Nachweis der Wallet, den Nachweis zu besitzen, ist nicht gültig.',
  'failure.key_binding_missing': 'Die Wallet hat nicht nachgewiesen, dass sie den Nachweis besitzt.',
  'failure.key_binding_stale': 'Der Nachweis der Wallet war zu alt (oder die Uhr des Geräts geht falsch).',
  'failure.sd_hash_mismatch': 'Der Nachweis der Wallet deckt nicht ab, was sie geteilt hat.',
  'failure.transaction_data_missing':
    'Die Wallet hat die Dokumente oder Bedingungen dieses Schritts nicht unterschrieben.',
  'failure.transaction_data_mismatch':
    'Die Wallet hat etwas anderes unterschrieben als die Dokumente dieses Schritts.',
  'failure.device_signed_unauthorized':
    'Mit diesem Nachweis dürfen keine Dokumente oder Bedingungen unterschrieben werden.',
  'failure.response_not_encrypted':
    'Die Antwort der Wallet war nicht so verschlüsselt, wie diese Anfrage es verlangt.',
  'failure.response_decryption_failed': 'Die Antwort der Wallet war für eine andere Anfrage verschlüsselt.',
  'failure.verifier_info_mismatch':
    'Die Wallet hat die Anfrage abgelehnt: Ihr Registrierungszertifikat passt nicht zur signierenden Stelle.',
  'failure.verifier_info_invalid':
    'Die Wallet hat die Anfrage abgelehnt: Ihr Registrierungszertifikat ist nicht gültig.',
};

export const fr: Record<Keys, string> = {
  'result.step': 'Étape {n}\u00a0: {primitive}',
  'result.primitive.identify': 'Identification',
  'result.primitive.age_verify': 'Vérification de l’âge',
  'result.primitive.sign': 'Signature de documents',
  'result.primitive.attestation': 'Attestation',
  'result.completed': 'Terminée le',
  'result.notCompleted': 'Non terminée',
  'result.notCompletedText':
    'Vérifiée le {when}, mais une condition de ce parcours a fait échouer la session.',
  'result.claims': 'Données',
  'result.noClaims': 'Aucune des données demandées n’a été partagée.',
  'result.ageAtLeast': 'Au moins {n} ans',
  'result.yes': 'Oui',
  'result.no': 'Non',
  'result.document': 'Document {n}',
  'result.download': 'Télécharger l’original signé ({name})',
  'result.termsHash': 'Empreinte des conditions (SHA-256)',
  'result.signatureKey': 'Clé de signature (empreinte)',
  'result.presentedBy': 'Présenté par',
  'result.by.first': 'La personne à laquelle cette session est liée (première étape)',
  'result.by.holder_key': 'La même personne qu’à l’étape {n}\u00a0: même clé de détenteur',
  'result.by.claims':
    'La même personne qu’à l’étape {n}\u00a0: une autre clé, mêmes nom et date de naissance',
  'result.by.opted_out':
    'N’importe qui\u00a0: cette étape n’est pas liée à la personne de la première étape (désactivé dans le parcours)',
  'result.auditId': 'Identifiant d’audit',
  'audit.loading': 'Chargement de l’enregistrement d’audit…',
  'audit.title': 'Enregistrement d’audit',
  'audit.signedAt': 'Signé le',
  'audit.keyId': 'Identifiant de clé',
  'audit.digest': 'Empreinte',
  'audit.previous': 'Enregistrement précédent',
  'audit.none': 'aucun (première étape)',
  'audit.resultDigest': 'Empreinte du résultat',
  'audit.condition': 'Condition du parcours',
  'audit.json': 'Enregistrement signé (JSON)',
  'audit.verify': 'Vérifier la signature',
  'audit.verifying': 'Vérification…',
  'audit.cannotCheck': 'Impossible de vérifier la signature\u00a0: {error}',
  'audit.valid':
    'Signature valide\u00a0: signée par la clé du service {kid}\u00a0; l’enregistrement correspond à son empreinte.',
  'audit.invalid': 'Signature invalide\u00a0: {reason}.',
  'timeline.which': 'condition {index} de l’étape {n}',
  'timeline.whichNoStep': 'condition {index}',
  'timeline.failed': '{which}, la session a donc échoué.',
  'timeline.skipped': '{which}, la session a donc continué à l’étape {n}.',
  'timeline.completed': '{which}, la session s’est donc terminée.',
  'timeline.answered': '{event}\u00a0: réponse {status}',
  'timeline.noAnswer': '{event}\u00a0: pas de réponse',
  'failure.unknown': 'La session a échoué pour la raison que nomme le code (voir la référence des erreurs).',
  'failure.failed': 'La session a échoué.',
  'failure.age_requirement_not_met':
    'La personne n’a pas l’âge requis\u00a0: la vérification de l’âge de cette étape n’est pas satisfaite.',
  'failure.condition_not_met': 'Une condition de cette étape a fait échouer la session.',
  'failure.nationality_not_accepted':
    'La nationalité indiquée dans le justificatif n’est pas acceptée par ce parcours.',
  'failure.document_not_accepted': 'La pièce d’identité n’est pas acceptée par ce parcours.',
  'failure.session_expired': 'Le temps de la session s’est écoulé avant qu’elle soit terminée.',
  'failure.step_window_expired': 'Le temps de cette étape s’est écoulé avant que la personne l’ait terminée.',
  'failure.issuer_untrusted':
    'Le justificatif provient d’un émetteur auquel ce parcours ne fait pas confiance.',
  'failure.credential_signature_invalid': 'La signature du justificatif n’est pas valide.',
  'failure.credential_type_invalid': 'Le justificatif n’est pas d’un type accepté par cette étape.',
  'failure.credential_expired': 'Le justificatif avait expiré.',
  'failure.credential_revoked': 'Le justificatif a été révoqué par son émetteur.',
  'failure.credential_suspended': 'Le justificatif est suspendu par son émetteur.',
  'failure.status_check_failed': 'Le statut du justificatif n’a pas pu être vérifié.',
  'failure.issuer_certificate_invalid_at_signing':
    'L’émetteur a signé le justificatif alors que son certificat n’était pas valide.',
  'failure.holder_mismatch':
    'Le justificatif appartient à une autre personne que celle de la première étape.',
  'failure.claims_missing': 'Le portefeuille n’a pas partagé toutes les données demandées par cette étape.',
  'failure.disclosure_invalid': 'Une donnée partagée ne correspond pas au justificatif.',
  'failure.presentation_malformed': 'La réponse du portefeuille n’a pas pu être lue.',
  'failure.request_not_found': 'Le portefeuille a répondu à une demande déjà utilisée ou expirée.',
  'failure.nonce_mismatch': 'Le portefeuille a répondu à une demande plus ancienne.',
  'failure.audience_mismatch': 'La réponse du portefeuille était destinée à un autre vérificateur.',
  'failure.key_binding_invalid':
    'La preuve de détention du justificatif fournie par le portefeuille n’est pas valide.',
  'failure.key_binding_missing': 'Le portefeuille n’a pas prouvé qu’il détient le justificatif.',
  'failure.key_binding_stale':
    'La preuve du portefeuille était trop ancienne (ou l’horloge de l’appareil est décalée).',
  'failure.sd_hash_mismatch': 'La preuve du portefeuille ne couvre pas ce qu’il a partagé.',
  'failure.transaction_data_missing':
    'Le portefeuille n’a pas signé les documents ou les conditions de cette étape.',
  'failure.transaction_data_mismatch':
    'Le portefeuille a signé autre chose que les documents de cette étape.',
  'failure.device_signed_unauthorized': 'Ce justificatif ne peut pas signer de documents ni de conditions.',
  'failure.response_not_encrypted':
    'La réponse du portefeuille n’était pas chiffrée comme cette demande l’exige.',
  'failure.response_decryption_failed': 'La réponse du portefeuille était chiffrée pour une autre demande.',
  'failure.verifier_info_mismatch':
    'Le portefeuille a refusé la demande\u00a0: son certificat d’enregistrement ne correspond pas au signataire.',
  'failure.verifier_info_invalid':
    'Le portefeuille a refusé la demande\u00a0: son certificat d’enregistrement n’est pas valide.',
};

/** The codes a session's failure_reason or a refused wallet answer carries (README "Sessions and states"). */
export type FailureCode =
  | ConditionFailureReason
  | 'failed'
  | Extract<
      ErrorCode,
      | 'session_expired'
      | 'step_window_expired'
      | 'issuer_untrusted'
      | 'credential_signature_invalid'
      | 'credential_type_invalid'
      | 'credential_expired'
      | 'credential_revoked'
      | 'credential_suspended'
      | 'status_check_failed'
      | 'issuer_certificate_invalid_at_signing'
      | 'holder_mismatch'
      | 'claims_missing'
      | 'disclosure_invalid'
      | 'presentation_malformed'
      | 'request_not_found'
      | 'nonce_mismatch'
      | 'audience_mismatch'
      | 'key_binding_invalid'
      | 'key_binding_missing'
      | 'key_binding_stale'
      | 'sd_hash_mismatch'
      | 'transaction_data_missing'
      | 'transaction_data_mismatch'
      | 'device_signed_unauthorized'
      | 'response_not_encrypted'
      | 'response_decryption_failed'
      | 'verifier_info_mismatch'
      | 'verifier_info_invalid'
    >;

/** Every failure code to its sentence. */
export const FAILURE_WORDS = {
  failed: 'failure.failed',
  age_requirement_not_met: 'failure.age_requirement_not_met',
  condition_not_met: 'failure.condition_not_met',
  nationality_not_accepted: 'failure.nationality_not_accepted',
  document_not_accepted: 'failure.document_not_accepted',
  session_expired: 'failure.session_expired',
  step_window_expired: 'failure.step_window_expired',
  issuer_untrusted: 'failure.issuer_untrusted',
  credential_signature_invalid: 'failure.credential_signature_invalid',
  credential_type_invalid: 'failure.credential_type_invalid',
  credential_expired: 'failure.credential_expired',
  credential_revoked: 'failure.credential_revoked',
  credential_suspended: 'failure.credential_suspended',
  status_check_failed: 'failure.status_check_failed',
  issuer_certificate_invalid_at_signing: 'failure.issuer_certificate_invalid_at_signing',
  holder_mismatch: 'failure.holder_mismatch',
  claims_missing: 'failure.claims_missing',
  disclosure_invalid: 'failure.disclosure_invalid',
  presentation_malformed: 'failure.presentation_malformed',
  request_not_found: 'failure.request_not_found',
  nonce_mismatch: 'failure.nonce_mismatch',
  audience_mismatch: 'failure.audience_mismatch',
  key_binding_invalid: 'failure.key_binding_invalid',
  key_binding_missing: 'failure.key_binding_missing',
  key_binding_stale: 'failure.key_binding_stale',
  sd_hash_mismatch: 'failure.sd_hash_mismatch',
  transaction_data_missing: 'failure.transaction_data_missing',
  transaction_data_mismatch: 'failure.transaction_data_mismatch',
  device_signed_unauthorized: 'failure.device_signed_unauthorized',
  response_not_encrypted: 'failure.response_not_encrypted',
  response_decryption_failed: 'failure.response_decryption_failed',
  verifier_info_mismatch: 'failure.verifier_info_mismatch',
  verifier_info_invalid: 'failure.verifier_info_invalid',
} as const satisfies Record<FailureCode, Keys>;
