// French message catalogue of the signer page (keys and placeholders as in en.ts). Formal "vous" throughout.
import type { Messages } from './en';

export const fr: Messages = {
  'lang.label': 'Langue',
  'page.title': '{business} – Vérification',
  'page.notFoundTitle': 'Page introuvable',
  'page.notFoundText':
    'Il n’y a rien à cette adresse. Si vous avez reçu un lien de vérification, vérifiez que vous l’avez ouvert en entier.',
  'page.cannotOpen': 'Impossible d’ouvrir cette vérification',
  'page.tryAgain': 'Réessayer',
  'page.loading': 'Chargement de votre vérification…',
  'page.sandbox': 'SANDBOX',
  'page.asks': '{business} vous demande de partager :',
  'page.validUntil': 'Ce lien est valable jusqu’au {date}.',
  'page.nextStep': 'Votre prochaine étape',
  'page.supportRef': 'Référence pour le support :',
  'state.pendingTitle': 'Un instant',
  'state.pendingText': 'Cette page se met à jour toute seule.',
  'state.doneTitle': 'Vérification terminée.',
  'state.doneText': 'Votre justificatif se trouve ci-dessous, sous « Votre justificatif ».',
  'state.return': 'Retour à {business}',
  'state.returnTo': 'Retour à {host}',
  'state.expiredTitle': 'Ce lien a expiré',
  'state.expiredText':
    'Il ne permet plus rien. Si vous devez encore vous vérifier, demandez un nouveau lien à {business}.',
  'state.stoppedTitle': 'Cette vérification a été arrêtée',
  'state.stoppedText': '{business} y a mis fin. Vous pouvez fermer cette page.',
  'state.failedTitle': 'Cette vérification n’a pas pu aboutir',
  'state.failedText': 'Si vous devez encore vous vérifier, demandez un nouveau lien à {business}.',
  'state.lastTry':
    'Cette étape accepte encore une réponse de votre portefeuille : si elle est refusée aussi, cette vérification prend fin.',
  'state.triesLeft': 'Cette étape accepte encore {n} réponses de votre portefeuille.',
  'state.waitingTitle': 'En attente de {business}',
  'state.waitingText': '{business} examine ce que vous avez partagé. Cette page se met à jour toute seule.',
  'state.readyTitle': 'Prêt quand vous l’êtes',
  'state.readyText': 'Commencer lie cette vérification à ce navigateur. Terminez-la ici, sur cet appareil.',
  'state.start': 'Commencer',
  'state.starting': 'Démarrage…',
  'state.otherTitle': 'Commencée sur un autre appareil',
  'state.otherText':
    'Cette vérification a été commencée sur un autre appareil ou navigateur et ne peut être terminée que là-bas. Si ce n’était pas vous, contactez l’entreprise qui vous a envoyé le lien.',
  'steps.identify': 'Votre identité',
  'steps.ageThreshold': 'Que vous avez {threshold} ans ou plus',
  'steps.age': 'Votre âge',
  'steps.sign': 'Votre signature de documents',
  'steps.attestation': 'Votre accord sur les conditions présentées',
  'steps.done': 'Fait',
  'steps.now': 'Maintenant',
  'steps.ageNote': 'Seul un oui ou un non est partagé, pas votre date de naissance.',
  'claim.given_name': 'Prénom',
  'claim.family_name': 'Nom de famille',
  'claim.birth_date': 'Date de naissance',
  'claim.nationality': 'Nationalité',
  'claim.document_status': 'Statut du document (vérifié auprès de l’émetteur, non partagé comme donnée)',
  'step.headIdentify': 'Partager votre identité',
  'step.headAge': 'Confirmer votre âge',
  'step.headSignOne': 'Signer ce document',
  'step.headSignMany': 'Signer ces documents',
  'step.headAttestation': 'Accepter ces conditions',
  'step.ageAsk':
    '{business} demande si vous avez {threshold} ans ou plus. Seul un oui ou un non lui est transmis, jamais votre date de naissance.',
  'step.signRead':
    'Lisez les documents ci-dessous. Votre portefeuille signe exactement ces fichiers, identifiés par leurs empreintes SHA-256 ; ils ne peuvent plus être modifiés ensuite.',
  'step.signNotQes':
    'Il s’agit d’une signature électronique faite avec la clé de votre portefeuille. Ce n’est pas une signature électronique qualifiée (QES).',
  'step.termsRead':
    'Lisez les conditions ci-dessous. Votre portefeuille signe votre accord sur exactement ce texte.',
  'step.bytes': '{n} octets',
  'step.typeText': 'Texte',
  'step.typePng': 'Image PNG',
  'step.typeJpeg': 'Image JPEG',
  'step.walletShows':
    'Votre portefeuille affiche exactement ce que demande {business}, et rien n’est partagé avant que vous ne le confirmiez.',
  'step.share': 'Partager avec le portefeuille',
  'step.preparing': 'Préparation…',
  'step.openWallet': 'Ouvrir mon portefeuille',
  'step.deviceWalletWaiting': 'En attente de votre portefeuille. Confirmez ou annulez-y.',
  'step.deviceWalletSandbox':
    'Sandbox : un portefeuille sur cet appareil ne répond qu’avec une attestation de test d’un émetteur auquel ce sandbox fait confiance.',
  'step.sandboxWallet': 'Portefeuille de test (sandbox)',
  'step.sandboxNote':
    'Choisissez une personne de test. Son attestation vient de l’émetteur sandbox ; aucune donnée réelle.',
  'step.testPerson': 'Personne de test',
  'step.sharing': 'Partage…',
  'step.sandboxProtocol': 'Protocole',
  'step.protocolOpenId4Vp': 'OpenID4VP (Chrome, Android)',
  'step.protocolAnnexC': 'ISO Annexe C (Safari, iPhone)',
  'step.shareTest': 'Partager avec le portefeuille de test',
  // signer page words (issue 20)
  'state.doneClose': 'Vous pouvez fermer cette page.',
  // document viewer, shown-to-end gate and deadline (issue 17, ADR 0029)
  'steps.signShown': 'Chaque document vous est présenté ici en entier avant que vous ne signiez :',
  'steps.termsShown': 'Les conditions vous sont présentées ici en entier avant que vous ne les approuviez.',
  'viewer.loading': 'Affichage du document…',
  'viewer.failed':
    'Ce document ne peut pas être affiché sur cette page. Téléchargez-le pour le consulter, et demandez un nouveau lien à l’entreprise si vous souhaitez le signer.',
  'viewer.page': 'Page {n} sur {total}',
  'viewer.pageText': 'Texte de cette page',
  'viewer.end': 'Fin de « {label} ».',
  'viewer.shown': 'Affiché jusqu’à la fin.',
  'viewer.download': 'Télécharger le fichier exact',
  'viewer.gate': 'Faites défiler chaque document jusqu’à la fin pour continuer.',
  'deadline.step': 'Terminez cette étape avant {time}.',
  'deadline.stepLeft': 'Temps restant pour cette étape : {time}',
  'deadline.linkLeft': 'Temps restant avant l’expiration de ce lien : {time}',
  'deadline.up': 'Le temps est écoulé.',
  'error.documents_not_shown':
    'Faites défiler chaque document jusqu’à la fin avant de partager avec votre portefeuille.',
  'cross.title': 'Utiliser un portefeuille sur un autre appareil',
  'cross.preparing': 'Préparation d’un code…',
  'cross.scan':
    'Scannez ce code avec votre application portefeuille. Cette page avance toute seule une fois que vous avez partagé dans le portefeuille.',
  'cross.qrAlt': 'Code QR qui ouvre votre application portefeuille',
  'cross.openHere': 'Ouvrir l’application portefeuille sur cet appareil',
  'cross.openSandbox': 'Ouvrir dans le portefeuille sandbox',
  'cross.newCode': 'Afficher un nouveau code',
  // the sandbox wallet's consent screen: who asks and why, read from the signed request (issue 19, ADR 0040)
  'consent.title': 'Votre portefeuille de test vous demande',
  'consent.asks': '{business} demande\u00a0:',
  'consent.purpose': 'Finalité : {purpose}',
  'consent.noPurpose': 'Aucune finalité n’a été indiquée.',
  'consent.via': 'via {host}',
  'consent.verified': 'Tiré de la demande signée que ce portefeuille a reçue et vérifiée.',
  'consent.share': 'Partager',
  'consent.decline': 'Refuser',
  'consent.declined': 'Vous avez refusé. Rien n’a été partagé.',
  'error.verifier_info_mismatch':
    'Le portefeuille a refusé cette demande : le certificat d’enregistrement qu’elle contient appartient à une autre partie que celle qui l’a signée. Rien n’a été partagé.',
  'error.verifier_info_invalid':
    'Le portefeuille a refusé cette demande : son certificat d’enregistrement n’a pas pu être vérifié. Rien n’a été partagé.',
  'receipt.title': 'Votre justificatif',
  'receipt.closedText':
    'Vous avez fermé l’accès en ligne à ce justificatif. Plus rien ne peut être téléchargé ou envoyé par e-mail d’ici, et les liens de reçu ne fonctionnent plus. Les fichiers enregistrés restent valables.',
  'receipt.endedText':
    'L’accès en ligne a pris fin le {date} (48 heures après la fin de la vérification). Les fichiers enregistrés restent valables.',
  'receipt.partial': 'Un reçu partiel : {done} étape(s) sur {total} terminée(s) jusqu’ici.',
  'receipt.full': 'Un reçu de tout ce que vous avez terminé.',
  'receipt.notSignature': 'C’est une trace lisible de ce qui a été vérifié, pas une nouvelle signature.',
  'receipt.sandbox': 'Ceci est un exemple de test (sandbox).',
  'receipt.downloadPartial': 'Télécharger le reçu partiel (PDF)',
  'receipt.download': 'Télécharger le reçu (PDF)',
  'receipt.signedDocs': 'Documents signés',
  'receipt.until':
    'Vous pouvez les télécharger ici jusqu’au {date}. Les fichiers enregistrés restent valables ensuite.',
  'receipt.emailTitle': 'Recevoir le reçu par e-mail',
  'receipt.sentTo': 'Reçu envoyé à {to}.',
  'receipt.emailLabel': 'Adresse e-mail',
  'receipt.newCodeIn': 'Envoyer un nouveau code dans {time}',
  'receipt.newCode': 'Envoyer un nouveau code',
  'receipt.sendCode': 'Envoyer le code',
  'receipt.codeSent': 'Nous avons envoyé un code à six chiffres à {to}. Il est valable encore {time}.',
  'receipt.codeLabel': 'Code',
  'receipt.emailMe': 'M’envoyer le reçu par e-mail',
  'receipt.codeLimit': 'Vous avez demandé cinq codes cette heure-ci. Veuillez réessayer plus tard.',
  'receipt.closeTitle': 'Fermer l’accès en ligne',
  'receipt.closeTextPartial':
    'La fermeture arrête définitivement tous les téléchargements, e-mails de reçu et liens de reçu de cette vérification. Le résultat reste chez l’entreprise comme avant.',
  'receipt.closeText':
    'La fermeture arrête définitivement tous les téléchargements, e-mails de reçu et liens de reçu de cette vérification. Le résultat et ses preuves restent chez l’entreprise comme avant.',
  'receipt.closeButton': 'Fermer l’accès en ligne…',
  'receipt.downloaded': 'Vous avez téléchargé le reçu dans ce navigateur.',
  'receipt.notDownloaded': 'Vous n’avez pas téléchargé le reçu dans ce navigateur.',
  'receipt.afterClose': 'Après la fermeture, il ne pourra plus être téléchargé ici.',
  'receipt.mayArrive': 'Un e-mail de reçu déjà demandé peut encore arriver.',
  'receipt.confirmClose': 'Fermer l’accès définitivement',
  'receipt.cancel': 'Annuler',
  'error.generic': 'Un problème est survenu de notre côté. Veuillez réessayer dans un instant.',
  'error.not_found':
    'Ce lien de vérification n’est pas valide. Vérifiez que vous avez ouvert le lien complet reçu.',
  'error.session_expired': 'Ce lien de vérification a expiré. Demandez un nouveau lien à l’entreprise.',
  'error.session_bound_elsewhere':
    'Cette vérification a été commencée sur un autre appareil ou navigateur. Continuez là-bas, ou demandez un nouveau lien à l’entreprise.',
  'error.session_state_conflict':
    'Cette vérification a avancé entre-temps. La page montre où elle en est maintenant.',
  'error.step_window_expired':
    'Le temps prévu pour cette étape est écoulé. Demandez un nouveau lien à l’entreprise.',
  'error.forbidden': 'Vous ne pouvez pas faire cela depuis ce navigateur.',
  'error.service_unavailable':
    'Cela n’a pas été possible pour le moment. Veuillez réessayer dans une minute.',
  'error.rate_limited': 'Trop de tentatives en peu de temps. Veuillez patienter une minute et réessayer.',
  'error.network_error': 'Le serveur est injoignable. Vérifiez votre connexion et réessayez.',
  'error.payload_too_large': 'La réponse du portefeuille était trop volumineuse. Veuillez réessayer.',
  'error.request_not_found':
    'Cette demande au portefeuille a déjà été utilisée ou a expiré. Veuillez partager à nouveau.',
  'error.presentation_malformed':
    'La réponse du portefeuille n’a pas pu être lue. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.issuer_untrusted':
    'Cette attestation vient d’un émetteur qui n’est pas accepté ici. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.credential_signature_invalid':
    'La signature de l’attestation n’a pas pu être confirmée. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.credential_type_invalid':
    'Ce type d’attestation n’est pas accepté pour cette étape. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.credential_revoked':
    "Cette attestation a été révoquée par son émetteur et ne peut pas être utilisée ici. Partagez une autre attestation, ou contactez l'entreprise qui vous a envoyé ce lien.",
  'error.credential_suspended':
    "Cette attestation est actuellement suspendue par son émetteur et ne peut pas être utilisée ici. Partagez une autre attestation, ou contactez l'entreprise qui vous a envoyé ce lien.",
  'error.credential_expired':
    "Cette attestation a expiré et ne peut pas être utilisée ici. Partagez une autre attestation, ou contactez l'entreprise qui vous a envoyé ce lien.",
  'error.status_check_failed':
    'Nous n’avons pas pu vérifier l’attestation auprès de son émetteur pour le moment. Veuillez réessayer.',
  'error.claims_missing':
    'Le portefeuille n’a pas partagé tout ce qui était demandé. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.disclosure_invalid':
    'Une partie des données partagées ne correspond pas à l’attestation. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.nonce_mismatch':
    'Le portefeuille a répondu à une demande plus ancienne. Veuillez partager à nouveau.',
  'error.audience_mismatch':
    'La réponse du portefeuille était destinée à un autre site. Veuillez partager à nouveau depuis cette page.',
  'error.key_binding_missing':
    'Le portefeuille n’a pas prouvé qu’il détient l’attestation. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.holder_mismatch':
    'Cette attestation appartient à une autre personne que celle qui a effectué la première étape. Chaque étape doit être faite par cette même personne : veuillez partager son attestation.',
  'error.key_binding_invalid':
    'La preuve de détention du portefeuille n’est pas valide. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.key_binding_stale':
    'La réponse du portefeuille est trop ancienne, ou l’horloge de l’appareil est décalée. Veuillez partager à nouveau.',
  'error.sd_hash_mismatch':
    'La preuve du portefeuille ne couvre pas les données partagées. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.transaction_data_missing':
    'Le portefeuille n’a pas signé les documents ou conditions affichés ici. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.transaction_data_mismatch':
    'Le portefeuille a signé d’autres documents ou conditions que ceux affichés ici. Veuillez partager à nouveau depuis cette page.',
  'error.device_signed_unauthorized':
    'Cette attestation ne peut pas servir à signer des documents ou des conditions. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.response_not_encrypted':
    'La réponse du portefeuille n’était pas protégée comme requis. Veuillez réessayer, ou utiliser une autre attestation.',
  'error.response_decryption_failed':
    'La réponse du portefeuille était destinée à une autre demande. Veuillez partager à nouveau.',
  'error.receipt_not_available': 'Un reçu est disponible dès qu’une étape est terminée.',
  'error.receipt_access_ended':
    'L’accès en ligne à ce justificatif a pris fin (48 heures après la fin de la vérification). Les fichiers enregistrés restent valables.',
  'error.receipt_access_closed':
    'L’accès en ligne à ce justificatif a été fermé. Les fichiers enregistrés restent valables.',
  'error.receipt_code_invalid': 'Ce code n’est pas correct. Vérifiez l’e-mail et réessayez.',
  'error.receipt_code_expired': 'Ce code a expiré ou a déjà été utilisé. Demandez un nouveau code.',
  'error.receipt_code_too_soon': 'Veuillez patienter une minute avant de demander un nouveau code.',
  'error.receipt_code_limit': 'Vous avez demandé cinq codes cette heure-ci. Veuillez réessayer plus tard.',
  'error.wallet_cancelled': 'Le partage a été annulé. Vous pouvez réessayer quand vous serez prêt.',
  'error.wallet_unavailable':
    'Aucun portefeuille de cet appareil n’a pu répondre. Réessayez, ou utilisez un autre appareil.',
  'error.issuer_certificate_invalid_at_signing':
    'Ce justificatif a été émis à un moment où le certificat de son émetteur n’était pas valide, il ne peut donc pas être utilisé ici. Partagez un autre justificatif, ou contactez l’émetteur.',
  'error.cannot_ask_wallet':
    'Cette vérification ne peut pas interroger de portefeuille pour le moment\u00a0: sa configuration sur le service n’est pas terminée. Veuillez contacter l’entreprise qui vous a envoyé ce lien.',
  // the sandbox wallet's test persons (ids from the server's sandbox personas)
  'persona.adult.label': 'Erika Mustermann',
  'persona.adult.note': 'Majeure, avec un PID valide (DE, née le 12/01/1984).',
  'persona.minor.label': 'Max Mustermann',
  'persona.minor.note': 'Mineur, avec un PID valide (DE, 12 ans).',
  'persona.revoked.label': 'Erika Mustermann (PID révoqué)',
  'persona.revoked.note': 'L’émetteur a révoqué le PID (valeur 1 de la liste de statuts).',
  'persona.suspended.label': 'Erika Mustermann (PID suspendu)',
  'persona.suspended.note': 'L’émetteur a suspendu le PID (valeur 2 de la liste de statuts).',
  'persona.revoked_mdoc.label': 'Erika Mustermann (PID mdoc révoqué)',
  'persona.revoked_mdoc.note':
    'Présente le PID européen au format ISO mdoc (ou l’attestation d’âge), révoqué dans sa Token Status List (CWT).',
  'persona.revoked_mdl.label': 'Erika Mustermann (permis de conduire mobile révoqué)',
  'persona.revoked_mdl.note':
    'Présente le mDL, dont l’identifiant figure dans la liste d’identifiants ISO 18013-5 de l’émetteur (révoqué).',
  'persona.suspended_mdoc.label': 'Erika Mustermann (PID mdoc suspendu)',
  'persona.suspended_mdoc.note':
    'Présente le PID européen au format ISO mdoc (ou l’attestation d’âge), suspendu dans sa Token Status List (CWT).',
  'persona.expired.label': 'Erika Mustermann (PID expiré)',
  'persona.expired.note': 'Le PID a expiré il y a un mois.',
  'persona.unknown_issuer.label': 'Erika Mustermann (émetteur inconnu)',
  'persona.unknown_issuer.note': 'Un PID signé par un émetteur auquel aucun environnement ne fait confiance.',
  'persona.unknown_holder_key.label': 'Erika Mustermann (clé du titulaire inconnue)',
  'persona.unknown_holder_key.note':
    'Un PID valide, mais le wallet signe avec une clé à laquelle le justificatif n’est pas lié (liaison de clé invalide).',
  'persona.adult_second_device.label': 'Erika Mustermann (deuxième appareil)',
  'persona.adult_second_device.note':
    'Un PID valide de la même personne dans un autre portefeuille : une autre clé du titulaire, les mêmes nom et date de naissance.',
  'persona.adult_mdoc.label': 'Erika Mustermann (PID mdoc)',
  'persona.adult_mdoc.note':
    'Présente un mdoc ISO : le PID de l’UE (eu.europa.ec.eudi.pid.1) ou, pour une vérification d’âge, l’attestation d’âge de l’UE.',
  'persona.adult_mdl.label': 'Erika Mustermann (permis de conduire mobile)',
  'persona.adult_mdl.note': 'Présente le permis de conduire mobile ISO 18013-5 (org.iso.18013.5.1.mDL).',
  'persona.minor_mdoc.label': 'Max Mustermann (PID mdoc)',
  'persona.minor_mdoc.note':
    'Mineur (12 ans) présentant un mdoc ISO : le PID de l’UE ou, pour une vérification d’âge, l’attestation d’âge de l’UE.',
  'persona.unknown_holder_key_mdoc.label': 'Erika Mustermann (clé du titulaire inconnue, PID mdoc)',
  'persona.unknown_holder_key_mdoc.note':
    'Présente le PID de l’UE en mdoc ISO (ou l’attestation d’âge), mais la signature de l’appareil est faite avec une autre clé que la clé d’appareil du MSO.',
  // what happened, where it happened (issue 29)
  'steps.notDone': 'Non terminée',
  'steps.timedOut': 'Temps écoulé',
  'state.stepExpiredTitle': 'Le temps imparti pour cette étape est écoulé',
  'state.stepExpiredText':
    'Chaque étape doit être terminée dans le temps imparti. Ce lien ne permet plus rien : si vous devez encore vous vérifier, demandez un nouveau lien à {business}.',
  'failure.ageThreshold':
    'Votre portefeuille a répondu que vous n’avez pas {threshold} ans ou plus ; {business} ne peut donc pas poursuivre cette vérification. Seule cette réponse par oui ou non a été partagée, pas votre date de naissance. Si vous pensez que c’est une erreur, contactez {business}.',
  'failure.age':
    'Ce que votre portefeuille a partagé ne remplit pas la condition d’âge de {business} ; cette vérification ne peut donc pas se poursuivre. Si vous pensez que c’est une erreur, contactez {business}.',
  'failure.nationality':
    '{business} ne peut pas accepter la nationalité indiquée dans l’attestation partagée ; cette vérification ne peut donc pas se poursuivre. Si vous pensez que c’est une erreur, contactez {business}.',
  'failure.document':
    '{business} n’accepte pas le type de document que vous avez partagé pour cette étape ; cette vérification ne peut donc pas se poursuivre. Si vous avez un autre document, demandez un nouveau lien à {business}.',
  'failure.condition':
    'Ce que vous avez partagé ne remplit pas une condition fixée par {business} ; cette vérification ne peut donc pas se poursuivre. Pour toute question, contactez {business}.',
  'failure.refused': 'Les réponses de votre portefeuille pour cette étape ont été refusées trop de fois.',
  'consent.signs': 'Vous signez :',
  'consent.approves': 'Vous approuvez ces conditions :',
  'viewer.zoom': 'Texte plus grand',

  // the same-device redirect back from the wallet (issue 26, ADR 0050; routes/WalletReturn.tsx)
  'return.title': 'Retour de votre portefeuille',
  'return.checking': 'Vérification de la réponse envoyée par votre portefeuille…',
  'return.linkUsed':
    'Ce lien de retour a déjà été utilisé ou a expiré. Ouvrez votre lien de vérification pour voir où elle en est.',
  'return.openSession': 'Ouvrir la vérification',
  'error.redirect_other_browser':
    'Votre portefeuille vous a renvoyé vers un autre navigateur que celui où cette vérification a été commencée. Pour votre protection, rien n’est affiché ici : retournez au navigateur ou à l’appareil où vous avez commencé, votre réponse y est affichée.',
};
