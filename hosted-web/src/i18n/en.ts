// English message catalogue of the signer page: the reference every other language must match key for key
// (the Messages type makes a missing key a type error; test/unit/signer-i18n.test.ts also checks placeholders).
// {name} marks a value filled in at render time.
export const en = {
  'lang.label': 'Language',
  'page.title': '{business} – Verification',
  'page.notFoundTitle': 'Page not found',
  'page.notFoundText':
    'There is nothing at this address. If you were sent a verification link, check that you opened all of it.',
  'page.cannotOpen': 'We could not open this verification',
  'page.tryAgain': 'Try again',
  'page.loading': 'Loading your verification…',
  'page.sandbox': 'SANDBOX',
  'page.asks': '{business} asks you to share:',
  'page.validUntil': 'This link is valid until {date}.',
  'page.nextStep': 'Your next step',
  'page.supportRef': 'Reference for support:',
  'state.pendingTitle': 'One moment',
  'state.pendingText': 'This page updates by itself.',
  'state.doneTitle': 'Verification complete.',
  'state.doneText': 'Your record of it is below, under “Your record”.',
  'state.return': 'Return to {business}',
  'state.returnTo': 'Return to {host}',
  'state.expiredTitle': 'This link has expired',
  'state.expiredText':
    'Nothing more can be done with it. If you still need to verify, ask {business} for a new link.',
  'state.stoppedTitle': 'This verification was stopped',
  'state.stoppedText': '{business} ended it. You can close this page.',
  'state.failedTitle': 'This verification could not be completed',
  'state.failedText': 'If you still need to verify, ask {business} for a new link.',
  'state.lastTry':
    'This step accepts one more answer from your wallet: if it is refused too, this verification ends.',
  'state.triesLeft': 'This step accepts {n} more answers from your wallet.',
  'state.waitingTitle': 'Waiting for {business}',
  'state.waitingText': '{business} is reviewing what you shared. This page updates by itself.',
  'state.readyTitle': 'Ready when you are',
  'state.readyText': 'Starting links this verification to this browser. Finish it here, on this device.',
  'state.start': 'Start',
  'state.starting': 'Starting…',
  'state.otherTitle': 'Started on another device',
  'state.otherText':
    'This verification was started on another device or browser, and can only be finished there. If that was not you, contact the business that sent you the link.',
  'steps.identify': 'Your identity',
  'steps.ageThreshold': 'That you are {threshold} or older',
  'steps.age': 'Your age',
  'steps.sign': 'Your signature on documents',
  'steps.attestation': 'Your agreement to the terms shown',
  'steps.done': 'Done',
  'steps.now': 'Now',
  'steps.ageNote': 'Only a yes or no is shared, not your date of birth.',
  'claim.given_name': 'Given name',
  'claim.family_name': 'Family name',
  'claim.birth_date': 'Date of birth',
  'claim.nationality': 'Nationality',
  'claim.document_status': 'Document status (checked with the issuer, not shared as data)',
  'step.headIdentify': 'Share your identity',
  'step.headAge': 'Confirm your age',
  'step.headSignOne': 'Sign this document',
  'step.headSignMany': 'Sign these documents',
  'step.headAttestation': 'Approve these terms',
  'step.ageAsk':
    '{business} asks whether you are {threshold} or older. It receives only yes or no, never your date of birth.',
  'step.signRead':
    'Read the documents below. Your wallet signs exactly these files, identified by their SHA-256 fingerprints; they cannot be changed afterwards.',
  'step.signNotQes':
    'This is an electronic signature made with the key in your wallet. It is not a qualified electronic signature (QES).',
  'step.termsRead': 'Read the terms below. Your wallet signs your approval of exactly this text.',
  'step.bytes': '{n} bytes',
  'step.typeText': 'Text',
  'step.typePng': 'PNG image',
  'step.typeJpeg': 'JPEG image',
  'step.walletShows':
    'Your wallet shows exactly what {business} asks for, and nothing is shared until you confirm it there.',
  'step.share': 'Share with wallet',
  'step.preparing': 'Preparing…',
  'step.openWallet': 'Open my wallet',
  'step.deviceWalletWaiting': 'Waiting for your wallet. Confirm or cancel there.',
  'step.deviceWalletSandbox':
    'Sandbox: a wallet on this device answers only with a test credential from an issuer this sandbox trusts.',
  'step.sandboxWallet': 'Sandbox test wallet',
  'step.sandboxNote': 'Pick a test person. Their credential comes from the sandbox issuer; no real data.',
  'step.testPerson': 'Test person',
  'step.sharing': 'Sharing…',
  'step.sandboxProtocol': 'Protocol',
  'step.protocolOpenId4Vp': 'OpenID4VP (Chrome, Android)',
  'step.protocolAnnexC': 'ISO Annex C (Safari, iPhone)',
  'step.shareTest': 'Share with test wallet',
  // signer page words (issue 20)
  'state.doneClose': 'You can close this page.',
  // document viewer, shown-to-end gate and deadline (issue 17, ADR 0029)
  'steps.signShown': 'Each document is shown here in full before you sign:',
  'steps.termsShown': 'The terms are shown here in full before you approve them.',
  'viewer.loading': 'Showing the document…',
  'viewer.failed':
    'This document cannot be shown on this page. Download it to look at it, and ask the business for a new link if you want to sign it.',
  'viewer.page': 'Page {n} of {total}',
  'viewer.pageText': 'Text of this page',
  'viewer.end': 'End of “{label}”.',
  'viewer.shown': 'Shown to the end.',
  'viewer.download': 'Download the exact file',
  'viewer.gate': 'Scroll through every document to its end to continue.',
  'deadline.step': 'Finish this step by {time}.',
  'deadline.stepLeft': 'Time left for this step: {time}',
  'deadline.linkLeft': 'Time left before this link expires: {time}',
  'deadline.up': 'The time is up.',
  'error.documents_not_shown': 'Scroll through every document to its end before you share with your wallet.',
  'cross.title': 'Use a wallet on another device',
  'cross.preparing': 'Preparing a code…',
  'cross.scan':
    'Scan this code with your wallet app. This page moves on by itself once you have shared in the wallet.',
  'cross.qrAlt': 'QR code that opens your wallet app',
  'cross.openHere': 'Open the wallet app on this device',
  'cross.openSandbox': 'Open in sandbox wallet',
  'cross.newCode': 'Show a new code',
  // the sandbox wallet's consent screen: who asks and why, read from the signed request (issue 19, ADR 0040)
  'consent.title': 'Your test wallet asks you',
  'consent.asks': '{business} asks for:',
  'consent.purpose': 'Purpose: {purpose}',
  'consent.noPurpose': 'No purpose was given.',
  'consent.via': 'via {host}',
  'consent.verified': 'Taken from the signed request this wallet received and checked.',
  'consent.share': 'Share',
  'consent.decline': 'Decline',
  'consent.declined': 'You declined. Nothing was shared.',
  'error.verifier_info_mismatch':
    'The wallet refused this request: the registration certificate it carries belongs to someone other than the party that signed it. Nothing was shared.',
  'error.verifier_info_invalid':
    'The wallet refused this request: its registration certificate could not be verified. Nothing was shared.',
  'receipt.title': 'Your record',
  'receipt.closedText':
    'You closed online access to this record. Nothing can be downloaded or emailed from here any more, and receipt links no longer work. Files you saved stay valid.',
  'receipt.endedText':
    'Online access ended on {date} (48 hours after the verification ended). Files you saved stay valid.',
  'receipt.partial': 'A partial receipt of the {done} of {total} steps completed so far.',
  'receipt.full': 'A receipt of everything you completed.',
  'receipt.notSignature': 'It is a readable record of what was verified, not a new signature.',
  'receipt.sandbox': 'This is a test (sandbox) example.',
  'receipt.downloadPartial': 'Download partial receipt (PDF)',
  'receipt.download': 'Download receipt (PDF)',
  'receipt.signedDocs': 'Signed documents',
  'receipt.until': 'You can download these here until {date}. Files you save stay valid after that.',
  'receipt.emailTitle': 'Receive the receipt by email',
  'receipt.sentTo': 'Receipt sent to {to}.',
  'receipt.emailLabel': 'Email address',
  'receipt.newCodeIn': 'Send a new code in {time}',
  'receipt.newCode': 'Send a new code',
  'receipt.sendCode': 'Send code',
  'receipt.codeSent': 'We sent a six-digit code to {to}. It is valid for {time}.',
  'receipt.codeLabel': 'Code',
  'receipt.emailMe': 'Email me the receipt',
  'receipt.codeLimit': 'You have asked for five codes this hour. Please try again later.',
  'receipt.closeTitle': 'Close online access',
  'receipt.closeTextPartial':
    'Closing stops all downloads, receipt emails and receipt links for this verification, for good. The result stays with the business as before.',
  'receipt.closeText':
    'Closing stops all downloads, receipt emails and receipt links for this verification, for good. The result and its evidence stay with the business as before.',
  'receipt.closeButton': 'Close online access…',
  'receipt.downloaded': 'You downloaded the receipt in this browser.',
  'receipt.notDownloaded': 'You have not downloaded the receipt in this browser.',
  'receipt.afterClose': 'After closing, it cannot be downloaded here any more.',
  'receipt.mayArrive': 'A receipt email you already asked for may still arrive.',
  'receipt.confirmClose': 'Close access permanently',
  'receipt.cancel': 'Cancel',
  'error.generic': 'Something went wrong on our side. Please try again in a moment.',
  'error.not_found':
    'This verification link is not valid. Check that you opened the full link you were sent.',
  'error.session_expired': 'This verification link has expired. Ask the business for a new link.',
  'error.session_bound_elsewhere':
    'This verification was started on another device or browser. Continue there, or ask the business for a new link.',
  'error.session_state_conflict':
    'This verification has moved on in the meantime. The page shows where it stands now.',
  'error.step_window_expired': 'The time for this step has run out. Ask the business for a new link.',
  'error.forbidden': 'You cannot do this from this browser.',
  'error.service_unavailable': 'This could not be done right now. Please try again in a minute.',
  'error.rate_limited': 'Too many attempts in a short time. Please wait a minute and try again.',
  'error.network_error': 'We could not reach the server. Check your connection and try again.',
  'error.payload_too_large': 'The wallet answer was too large to accept. Please try again.',
  'error.request_not_found': 'This wallet request was already used or has run out. Please share again.',
  'error.presentation_malformed':
    'The wallet answer could not be read. Please try again, or use another credential.',
  'error.issuer_untrusted':
    'This credential comes from an issuer that is not accepted here. Please try again, or use another credential.',
  'error.credential_signature_invalid':
    "The credential's signature could not be confirmed. Please try again, or use another credential.",
  'error.credential_type_invalid':
    'This kind of credential is not accepted for this step. Please try again, or use another credential.',
  'error.credential_revoked':
    'This credential has been revoked by its issuer, so it cannot be used here. Share another credential, or contact the business that sent you this link.',
  'error.credential_suspended':
    'This credential is currently suspended by its issuer, so it cannot be used here. Share another credential, or contact the business that sent you this link.',
  'error.credential_expired':
    'This credential has expired, so it cannot be used here. Share another credential, or contact the business that sent you this link.',
  'error.status_check_failed':
    'We could not check the credential with its issuer right now. Please try again.',
  'error.claims_missing':
    'The wallet did not share everything that was asked for. Please try again, or use another credential.',
  'error.disclosure_invalid':
    'Part of the shared data does not match the credential. Please try again, or use another credential.',
  'error.nonce_mismatch': 'The wallet answered an older request. Please share again.',
  'error.audience_mismatch':
    'The wallet answer was made for another website. Please share again from this page.',
  'error.key_binding_missing':
    'The wallet did not prove it holds the credential. Please try again, or use another credential.',
  'error.holder_mismatch':
    'This credential belongs to someone other than the person who completed the first step. Each step must be done by that same person: please share their credential.',
  'error.key_binding_invalid':
    "The wallet's proof of holding the credential is not valid. Please try again, or use another credential.",
  'error.key_binding_stale': 'The wallet answer is too old, or the device clock is off. Please share again.',
  'error.sd_hash_mismatch':
    "The wallet's proof does not cover the shared data. Please try again, or use another credential.",
  'error.transaction_data_missing':
    'The wallet did not sign the documents or terms shown here. Please try again, or use another credential.',
  'error.transaction_data_mismatch':
    'The wallet signed other documents or terms than the ones shown here. Please share again from this page.',
  'error.device_signed_unauthorized':
    'This credential cannot be used to sign documents or terms. Please try again, or use another credential.',
  'error.response_not_encrypted':
    'The wallet answer was not protected as required. Please try again, or use another credential.',
  'error.response_decryption_failed': 'The wallet answer was meant for another request. Please share again.',
  'error.receipt_not_available': 'A receipt is available once a step is completed.',
  'error.receipt_access_ended':
    'Online access to this record has ended (48 hours after the verification ended). Files you saved stay valid.',
  'error.receipt_access_closed': 'Online access to this record was closed. Files you saved stay valid.',
  'error.receipt_code_invalid': 'That code is not correct. Check the email and try again.',
  'error.receipt_code_expired': 'That code has expired or was already used. Ask for a new code.',
  'error.receipt_code_too_soon': 'Please wait a minute before asking for a new code.',
  'error.receipt_code_limit': 'You have asked for five codes this hour. Please try again later.',
  'error.wallet_cancelled': 'Sharing was cancelled. You can try again when you are ready.',
  'error.wallet_unavailable': 'No wallet on this device could answer. Try again, or use another device.',
  'error.issuer_certificate_invalid_at_signing':
    "The credential was issued at a time its issuer's certificate was not valid, so it cannot be used here. Share another credential, or contact the issuer.",
  'error.cannot_ask_wallet':
    'This verification cannot ask a wallet right now: its setup on the service is not complete. Please contact the business that sent you this link.',
  // the sandbox wallet's test persons (ids from the server's sandbox personas)
  'persona.adult.label': 'Erika Mustermann',
  'persona.adult.note': 'Adult with a valid PID (DE, born 1984-01-12).',
  'persona.minor.label': 'Max Mustermann',
  'persona.minor.note': 'Minor with a valid PID (DE, 12 years old).',
  'persona.revoked.label': 'Erika Mustermann (revoked PID)',
  'persona.revoked.note': 'The PID has been revoked by its issuer (status list value 1).',
  'persona.suspended.label': 'Erika Mustermann (suspended PID)',
  'persona.suspended.note': 'The PID is suspended by its issuer (status list value 2).',
  'persona.revoked_mdoc.label': 'Erika Mustermann (revoked mdoc PID)',
  'persona.revoked_mdoc.note':
    'Presents the ISO mdoc EU PID (or the age-verification attestation), revoked in its Token Status List (CWT).',
  'persona.revoked_mdl.label': 'Erika Mustermann (revoked mobile driving licence)',
  'persona.revoked_mdl.note':
    "Presents the mDL, whose identifier is in the issuer's ISO 18013-5 identifier list (revoked).",
  'persona.suspended_mdoc.label': 'Erika Mustermann (suspended mdoc PID)',
  'persona.suspended_mdoc.note':
    'Presents the ISO mdoc EU PID (or the age-verification attestation), suspended in its Token Status List (CWT).',
  'persona.expired.label': 'Erika Mustermann (expired PID)',
  'persona.expired.note': 'The PID expired a month ago.',
  'persona.unknown_issuer.label': 'Erika Mustermann (unknown issuer)',
  'persona.unknown_issuer.note': 'A PID signed by an issuer that no environment trusts.',
  'persona.unknown_holder_key.label': 'Erika Mustermann (unknown holder key)',
  'persona.unknown_holder_key.note':
    'A valid PID, but the wallet signs with a key the credential is not bound to (key binding invalid).',
  'persona.adult_second_device.label': 'Erika Mustermann (second device)',
  'persona.adult_second_device.note':
    'A valid PID of the same person in another wallet: another holder key, the same name and birth date.',
  'persona.adult_mdoc.label': 'Erika Mustermann (mdoc PID)',
  'persona.adult_mdoc.note':
    'Presents ISO mdoc: the EU PID (eu.europa.ec.eudi.pid.1), or for an age check the EU age-verification attestation.',
  'persona.adult_mdl.label': 'Erika Mustermann (mobile driving licence)',
  'persona.adult_mdl.note': 'Presents the ISO 18013-5 mobile driving licence (org.iso.18013.5.1.mDL).',
  'persona.minor_mdoc.label': 'Max Mustermann (mdoc PID)',
  'persona.minor_mdoc.note':
    'Minor (12) presenting ISO mdoc: the EU PID, or for an age check the EU age-verification attestation.',
  'persona.unknown_holder_key_mdoc.label': 'Erika Mustermann (unknown holder key, mdoc PID)',
  'persona.unknown_holder_key_mdoc.note':
    'Presents the ISO mdoc EU PID (or the age-verification attestation), but the device signature is made with a key other than the MSO device key.',
  // what happened, where it happened (issue 29)
  'steps.notDone': 'Not completed',
  'steps.timedOut': 'Time ran out',
  'state.stepExpiredTitle': 'The time for this step ran out',
  'state.stepExpiredText':
    'Each step has to be finished within its time limit. Nothing more can be done with this link: if you still need to verify, ask {business} for a new link.',
  'failure.ageThreshold':
    'Your wallet answered that you are not {threshold} or older, so {business} cannot continue this verification. Only that yes-or-no answer was shared, not your date of birth. If you think this is wrong, contact {business}.',
  'failure.age':
    'What your wallet shared does not meet the age requirement of {business}, so this verification cannot continue. If you think this is wrong, contact {business}.',
  'failure.nationality':
    '{business} cannot accept the nationality in the credential you shared, so this verification cannot continue. If you think this is wrong, contact {business}.',
  'failure.document':
    '{business} does not accept the kind of document you shared for this step, so this verification cannot continue. If you have another document, ask {business} for a new link.',
  'failure.condition':
    'What you shared does not meet a requirement set by {business}, so this verification cannot continue. If you have questions, contact {business}.',
  'failure.refused': 'Your wallet’s answers for this step were refused too many times.',
  'consent.signs': 'You sign:',
  'consent.approves': 'You approve these terms:',
  'viewer.zoom': 'Larger text',

  // the same-device redirect back from the wallet (issue 26, ADR 0050; routes/WalletReturn.tsx)
  'return.title': 'Back from your wallet',
  'return.checking': 'Checking the answer your wallet sent…',
  'return.linkUsed':
    'This return link was already used or has run out. Open your verification link to see where it stands.',
  'return.openSession': 'Open the verification',
  'error.redirect_other_browser':
    'Your wallet sent you back to a different browser than the one where this verification was started. For your protection nothing is shown here: go back to the browser or device where you started, your answer is shown there.',
} as const;

export type MessageKey = keyof typeof en;
export type Messages = Record<MessageKey, string>;
