// German message catalogue of the signer page (keys and placeholders as in en.ts). formal "Sie" throughout.
import type { Messages } from './en';

export const de: Messages = {
  'lang.label': 'Sprache',
  'page.title': '{business} – Verifizierung',
  'page.notFoundTitle': 'Seite nicht gefunden',
  'page.notFoundText':
    'Unter dieser Adresse gibt es nichts. Wenn Sie einen Verifizierungslink erhalten haben, prüfen Sie, ob Sie ihn vollständig geöffnet haben.',
  'page.cannotOpen': 'Diese Verifizierung konnte nicht geöffnet werden',
  'page.tryAgain': 'Erneut versuchen',
  'page.loading': 'Ihre Verifizierung wird geladen…',
  'page.sandbox': 'SANDBOX',
  'page.asks': '{business} bittet Sie, Folgendes zu teilen:',
  'page.validUntil': 'Dieser Link ist gültig bis {date}.',
  'page.nextStep': 'Ihr nächster Schritt',
  'page.supportRef': 'Referenz für den Support:',
  'state.pendingTitle': 'Einen Moment',
  'state.pendingText': 'Diese Seite aktualisiert sich von selbst.',
  'state.doneTitle': 'Verifizierung abgeschlossen.',
  'state.doneText': 'Ihren Beleg finden Sie unten unter „Ihr Beleg“.',
  'state.return': 'Zurück zu {business}',
  'state.returnTo': 'Zurück zu {host}',
  'state.expiredTitle': 'Dieser Link ist abgelaufen',
  'state.expiredText':
    'Damit ist nichts mehr möglich. Wenn Sie sich noch verifizieren müssen, bitten Sie {business} um einen neuen Link.',
  'state.stoppedTitle': 'Diese Verifizierung wurde beendet',
  'state.stoppedText': '{business} hat sie beendet. Sie können diese Seite schließen.',
  'state.failedTitle': 'Diese Verifizierung konnte nicht abgeschlossen werden',
  'state.failedText': 'Wenn Sie sich noch verifizieren müssen, bitten Sie {business} um einen neuen Link.',
  'state.lastTry':
    'Dieser Schritt nimmt noch eine Antwort Ihrer Wallet an: Wird auch sie abgelehnt, endet diese Verifizierung.',
  'state.triesLeft': 'Dieser Schritt nimmt noch {n} Antworten Ihrer Wallet an.',
  'state.waitingTitle': 'Warten auf {business}',
  'state.waitingText': '{business} prüft, was Sie geteilt haben. Diese Seite aktualisiert sich von selbst.',
  'state.readyTitle': 'Bereit, wenn Sie es sind',
  'state.readyText':
    'Mit dem Start wird diese Verifizierung an diesen Browser gebunden. Schließen Sie sie hier auf diesem Gerät ab.',
  'state.start': 'Starten',
  'state.starting': 'Wird gestartet…',
  'state.otherTitle': 'Auf einem anderen Gerät gestartet',
  'state.otherText':
    'Diese Verifizierung wurde auf einem anderen Gerät oder Browser gestartet und kann nur dort abgeschlossen werden. Wenn Sie das nicht waren, wenden Sie sich an das Unternehmen, das Ihnen den Link geschickt hat.',
  'steps.identify': 'Ihre Identität',
  'steps.ageThreshold': 'Dass Sie {threshold} Jahre oder älter sind',
  'steps.age': 'Ihr Alter',
  'steps.sign': 'Ihre Unterschrift unter Dokumenten',
  'steps.attestation': 'Ihre Zustimmung zu den angezeigten Bedingungen',
  'steps.done': 'Erledigt',
  'steps.now': 'Jetzt',
  'steps.ageNote': 'Geteilt wird nur Ja oder Nein, nicht Ihr Geburtsdatum.',
  'claim.given_name': 'Vorname',
  'claim.family_name': 'Nachname',
  'claim.birth_date': 'Geburtsdatum',
  'claim.nationality': 'Staatsangehörigkeit',
  'claim.document_status': 'Dokumentstatus (beim Aussteller geprüft, nicht als Daten geteilt)',
  'step.headIdentify': 'Identität teilen',
  'step.headAge': 'Alter bestätigen',
  'step.headSignOne': 'Dieses Dokument unterschreiben',
  'step.headSignMany': 'Diese Dokumente unterschreiben',
  'step.headAttestation': 'Diesen Bedingungen zustimmen',
  'step.ageAsk':
    '{business} fragt, ob Sie {threshold} Jahre oder älter sind. Übermittelt wird nur Ja oder Nein, nie Ihr Geburtsdatum.',
  'step.signRead':
    'Lesen Sie die Dokumente unten. Ihre Wallet unterschreibt genau diese Dateien, erkennbar an ihren SHA-256-Fingerabdrücken; sie können danach nicht mehr geändert werden.',
  'step.signNotQes':
    'Dies ist eine elektronische Signatur mit dem Schlüssel in Ihrer Wallet. Es ist keine qualifizierte elektronische Signatur (QES).',
  'step.termsRead':
    'Lesen Sie die Bedingungen unten. Ihre Wallet unterschreibt Ihre Zustimmung zu genau diesem Text.',
  'step.bytes': '{n} Byte',
  'step.typeText': 'Text',
  'step.typePng': 'PNG-Bild',
  'step.typeJpeg': 'JPEG-Bild',
  'step.walletShows':
    'Ihre Wallet zeigt genau, was {business} anfragt, und nichts wird geteilt, bevor Sie es dort bestätigen.',
  'step.share': 'Mit Wallet teilen',
  'step.preparing': 'Wird vorbereitet…',
  'step.openWallet': 'Meine Wallet öffnen',
  'step.deviceWalletWaiting': 'Warten auf Ihre Wallet. Bestätigen Sie dort oder brechen Sie dort ab.',
  'step.deviceWalletSandbox':
    'Sandbox: Eine Wallet auf diesem Gerät antwortet nur mit einem Testnachweis eines Ausstellers, dem diese Sandbox vertraut.',
  'step.sandboxWallet': 'Sandbox-Test-Wallet',
  'step.sandboxNote':
    'Wählen Sie eine Testperson. Ihr Nachweis stammt vom Sandbox-Aussteller; es sind keine echten Daten.',
  'step.testPerson': 'Testperson',
  'step.sharing': 'Wird geteilt…',
  'step.sandboxProtocol': 'Protokoll',
  'step.protocolOpenId4Vp': 'OpenID4VP (Chrome, Android)',
  'step.protocolAnnexC': 'ISO Anhang C (Safari, iPhone)',
  'step.shareTest': 'Mit Test-Wallet teilen',
  // signer page words (issue 20)
  'state.doneClose': 'Sie können diese Seite jetzt schließen.',
  // document viewer, shown-to-end gate and deadline (issue 17, ADR 0029)
  'steps.signShown': 'Jedes Dokument wird Ihnen hier vollständig angezeigt, bevor Sie unterschreiben:',
  'steps.termsShown': 'Die Bedingungen werden Ihnen hier vollständig angezeigt, bevor Sie zustimmen.',
  'viewer.loading': 'Dokument wird angezeigt…',
  'viewer.failed':
    'Dieses Dokument kann auf dieser Seite nicht angezeigt werden. Laden Sie es herunter, um es anzusehen, und bitten Sie das Unternehmen um einen neuen Link, wenn Sie es unterschreiben möchten.',
  'viewer.page': 'Seite {n} von {total}',
  'viewer.pageText': 'Text dieser Seite',
  'viewer.end': 'Ende von „{label}“.',
  'viewer.shown': 'Bis zum Ende angezeigt.',
  'viewer.download': 'Genaue Datei herunterladen',
  'viewer.gate': 'Scrollen Sie durch jedes Dokument bis zu seinem Ende, um fortzufahren.',
  'deadline.step': 'Schließen Sie diesen Schritt bis {time} ab.',
  'deadline.stepLeft': 'Verbleibende Zeit für diesen Schritt: {time}',
  'deadline.linkLeft': 'Verbleibende Zeit, bis dieser Link abläuft: {time}',
  'deadline.up': 'Die Zeit ist abgelaufen.',
  'error.documents_not_shown':
    'Scrollen Sie durch jedes Dokument bis zu seinem Ende, bevor Sie mit Ihrer Wallet teilen.',
  'cross.title': 'Wallet auf einem anderen Gerät verwenden',
  'cross.preparing': 'Code wird vorbereitet…',
  'cross.scan':
    'Scannen Sie diesen Code mit Ihrer Wallet-App. Diese Seite geht von selbst weiter, sobald Sie in der Wallet geteilt haben.',
  'cross.qrAlt': 'QR-Code, der Ihre Wallet-App öffnet',
  'cross.openHere': 'Wallet-App auf diesem Gerät öffnen',
  'cross.openSandbox': 'In der Sandbox-Wallet öffnen',
  'cross.newCode': 'Neuen Code anzeigen',
  // the sandbox wallet's consent screen: who asks and why, read from the signed request (issue 19, ADR 0040)
  'consent.title': 'Ihre Test-Wallet fragt Sie',
  'consent.asks': '{business} möchte Folgendes sehen:',
  'consent.purpose': 'Zweck: {purpose}',
  'consent.noPurpose': 'Es wurde kein Zweck angegeben.',
  'consent.via': 'über {host}',
  'consent.verified': 'Aus der signierten Anfrage, die diese Wallet erhalten und geprüft hat.',
  'consent.share': 'Teilen',
  'consent.decline': 'Ablehnen',
  'consent.declined': 'Sie haben abgelehnt. Es wurde nichts geteilt.',
  'error.verifier_info_mismatch':
    'Die Wallet hat diese Anfrage abgelehnt: Das mitgeschickte Registrierungszertifikat gehört nicht zu dem, der die Anfrage signiert hat. Es wurde nichts geteilt.',
  'error.verifier_info_invalid':
    'Die Wallet hat diese Anfrage abgelehnt: Ihr Registrierungszertifikat konnte nicht geprüft werden. Es wurde nichts geteilt.',
  'receipt.title': 'Ihr Beleg',
  'receipt.closedText':
    'Sie haben den Online-Zugang zu diesem Beleg geschlossen. Von hier kann nichts mehr heruntergeladen oder gemailt werden, und Beleg-Links funktionieren nicht mehr. Gespeicherte Dateien bleiben gültig.',
  'receipt.endedText':
    'Der Online-Zugang endete am {date} (48 Stunden nach Ende der Verifizierung). Gespeicherte Dateien bleiben gültig.',
  'receipt.partial': 'Ein Teilbeleg über die bisher abgeschlossenen {done} von {total} Schritten.',
  'receipt.full': 'Ein Beleg über alles, was Sie abgeschlossen haben.',
  'receipt.notSignature': 'Er ist eine lesbare Aufzeichnung dessen, was geprüft wurde, keine neue Signatur.',
  'receipt.sandbox': 'Dies ist ein Testbeispiel (Sandbox).',
  'receipt.downloadPartial': 'Teilbeleg herunterladen (PDF)',
  'receipt.download': 'Beleg herunterladen (PDF)',
  'receipt.signedDocs': 'Unterschriebene Dokumente',
  'receipt.until':
    'Sie können diese Dateien hier bis {date} herunterladen. Gespeicherte Dateien bleiben danach gültig.',
  'receipt.emailTitle': 'Beleg per E-Mail erhalten',
  'receipt.sentTo': 'Beleg gesendet an {to}.',
  'receipt.emailLabel': 'E-Mail-Adresse',
  'receipt.newCodeIn': 'Neuen Code senden in {time}',
  'receipt.newCode': 'Neuen Code senden',
  'receipt.sendCode': 'Code senden',
  'receipt.codeSent': 'Wir haben einen sechsstelligen Code an {to} gesendet. Er ist noch {time} gültig.',
  'receipt.codeLabel': 'Code',
  'receipt.emailMe': 'Beleg per E-Mail senden',
  'receipt.codeLimit':
    'Sie haben in dieser Stunde fünf Codes angefordert. Bitte versuchen Sie es später erneut.',
  'receipt.closeTitle': 'Online-Zugang schließen',
  'receipt.closeTextPartial':
    'Das Schließen beendet endgültig alle Downloads, Beleg-E-Mails und Beleg-Links dieser Verifizierung. Das Ergebnis bleibt wie bisher beim Unternehmen.',
  'receipt.closeText':
    'Das Schließen beendet endgültig alle Downloads, Beleg-E-Mails und Beleg-Links dieser Verifizierung. Das Ergebnis bleibt wie bisher beim Unternehmen.',
  'receipt.closeButton': 'Online-Zugang schließen…',
  'receipt.downloaded': 'Sie haben den Beleg in diesem Browser heruntergeladen.',
  'receipt.notDownloaded': 'Sie haben den Beleg in diesem Browser nicht heruntergeladen.',
  'receipt.afterClose': 'Nach dem Schließen kann er hier nicht mehr heruntergeladen werden.',
  'receipt.mayArrive': 'Eine bereits angeforderte Beleg-E-Mail kann noch ankommen.',
  'receipt.confirmClose': 'Zugang endgültig schließen',
  'receipt.cancel': 'Abbrechen',
  'error.generic': 'Bei uns ist etwas schiefgelaufen. Bitte versuchen Sie es gleich noch einmal.',
  'error.not_found':
    'Dieser Verifizierungslink ist ungültig. Prüfen Sie, ob Sie den vollständigen Link geöffnet haben.',
  'error.session_expired':
    'Dieser Verifizierungslink ist abgelaufen. Bitten Sie das Unternehmen um einen neuen Link.',
  'error.session_bound_elsewhere':
    'Diese Verifizierung wurde auf einem anderen Gerät oder Browser gestartet. Fahren Sie dort fort oder bitten Sie das Unternehmen um einen neuen Link.',
  'error.session_state_conflict':
    'Diese Verifizierung ist inzwischen weitergegangen. Die Seite zeigt den aktuellen Stand.',
  'error.step_window_expired':
    'Die Zeit für diesen Schritt ist abgelaufen. Bitten Sie das Unternehmen um einen neuen Link.',
  'error.forbidden': 'Das ist in diesem Browser nicht möglich.',
  'error.service_unavailable': 'Das war gerade nicht möglich. Bitte versuchen Sie es in einer Minute erneut.',
  'error.rate_limited':
    'Zu viele Versuche in kurzer Zeit. Bitte warten Sie eine Minute und versuchen Sie es erneut.',
  'error.network_error':
    'Der Server war nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  'error.payload_too_large': 'Die Antwort der Wallet war zu groß. Bitte versuchen Sie es erneut.',
  'error.request_not_found':
    'Diese Wallet-Anfrage wurde bereits verwendet oder ist abgelaufen. Bitte teilen Sie erneut.',
  'error.presentation_malformed':
    'Die Antwort der Wallet konnte nicht gelesen werden. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.issuer_untrusted':
    'Dieser Nachweis stammt von einem Aussteller, der hier nicht akzeptiert wird. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.credential_signature_invalid':
    'Die Signatur des Nachweises konnte nicht bestätigt werden. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.credential_type_invalid':
    'Diese Art von Nachweis wird für diesen Schritt nicht akzeptiert. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.credential_revoked':
    'Dieser Nachweis wurde von seinem Aussteller widerrufen und kann hier nicht verwendet werden. Teilen Sie einen anderen Nachweis oder wenden Sie sich an das Unternehmen, das Ihnen diesen Link geschickt hat.',
  'error.credential_suspended':
    'Dieser Nachweis ist von seinem Aussteller derzeit ausgesetzt und kann hier nicht verwendet werden. Teilen Sie einen anderen Nachweis oder wenden Sie sich an das Unternehmen, das Ihnen diesen Link geschickt hat.',
  'error.credential_expired':
    'Dieser Nachweis ist abgelaufen und kann hier nicht verwendet werden. Teilen Sie einen anderen Nachweis oder wenden Sie sich an das Unternehmen, das Ihnen diesen Link geschickt hat.',
  'error.status_check_failed':
    'Der Nachweis konnte gerade nicht beim Aussteller geprüft werden. Bitte versuchen Sie es erneut.',
  'error.claims_missing':
    'Die Wallet hat nicht alles Angefragte geteilt. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.disclosure_invalid':
    'Ein Teil der geteilten Daten passt nicht zum Nachweis. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.nonce_mismatch': 'Die Wallet hat auf eine ältere Anfrage geantwortet. Bitte teilen Sie erneut.',
  'error.audience_mismatch':
    'Die Antwort der Wallet war für eine andere Website bestimmt. Bitte teilen Sie erneut von dieser Seite aus.',
  'error.key_binding_missing':
    'Die Wallet hat nicht nachgewiesen, dass sie den Nachweis besitzt. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.holder_mismatch':
    'Dieser Nachweis gehört einer anderen Person als der, die den ersten Schritt abgeschlossen hat. Jeder Schritt muss von derselben Person erledigt werden: Bitte teilen Sie deren Nachweis.',
  'error.key_binding_invalid':
    'Der Besitznachweis der Wallet ist ungültig. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.key_binding_stale':
    'Die Antwort der Wallet ist zu alt oder die Uhr des Geräts geht falsch. Bitte teilen Sie erneut.',
  'error.sd_hash_mismatch':
    'Der Nachweis der Wallet deckt die geteilten Daten nicht ab. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.transaction_data_missing':
    'Die Wallet hat die hier gezeigten Dokumente oder Bedingungen nicht unterschrieben. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.transaction_data_mismatch':
    'Die Wallet hat andere Dokumente oder Bedingungen unterschrieben als die hier gezeigten. Bitte teilen Sie erneut von dieser Seite aus.',
  'error.device_signed_unauthorized':
    'Mit diesem Nachweis können keine Dokumente oder Bedingungen unterschrieben werden. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.response_not_encrypted':
    'Die Antwort der Wallet war nicht wie erforderlich geschützt. Bitte versuchen Sie es erneut oder verwenden Sie einen anderen Nachweis.',
  'error.response_decryption_failed':
    'Die Antwort der Wallet war für eine andere Anfrage bestimmt. Bitte teilen Sie erneut.',
  'error.receipt_not_available': 'Ein Beleg ist verfügbar, sobald ein Schritt abgeschlossen ist.',
  'error.receipt_access_ended':
    'Der Online-Zugang zu diesem Beleg ist beendet (48 Stunden nach Ende der Verifizierung). Gespeicherte Dateien bleiben gültig.',
  'error.receipt_access_closed':
    'Der Online-Zugang zu diesem Beleg wurde geschlossen. Gespeicherte Dateien bleiben gültig.',
  'error.receipt_code_invalid':
    'Dieser Code ist nicht korrekt. Prüfen Sie die E-Mail und versuchen Sie es erneut.',
  'error.receipt_code_expired':
    'Dieser Code ist abgelaufen oder wurde bereits verwendet. Fordern Sie einen neuen Code an.',
  'error.receipt_code_too_soon': 'Bitte warten Sie eine Minute, bevor Sie einen neuen Code anfordern.',
  'error.receipt_code_limit':
    'Sie haben in dieser Stunde fünf Codes angefordert. Bitte versuchen Sie es später erneut.',
  'error.wallet_cancelled':
    'Das Teilen wurde abgebrochen. Sie können es erneut versuchen, wenn Sie bereit sind.',
  'error.wallet_unavailable':
    'Keine Wallet auf diesem Gerät konnte antworten. Versuchen Sie es erneut oder verwenden Sie ein anderes Gerät.',
  'error.issuer_certificate_invalid_at_signing':
    'Der Nachweis wurde zu einem Zeitpunkt ausgestellt, zu dem das Zertifikat seines Ausstellers nicht gültig war, und kann hier nicht verwendet werden. Teilen Sie einen anderen Nachweis, oder wenden Sie sich an den Aussteller.',
  'error.cannot_ask_wallet':
    'Diese Prüfung kann gerade keine Wallet anfragen: Ihre Einrichtung beim Dienst ist nicht abgeschlossen. Bitte wenden Sie sich an das Unternehmen, das Ihnen diesen Link geschickt hat.',
  // the sandbox wallet's test persons (ids from the server's sandbox personas)
  'persona.adult.label': 'Erika Mustermann',
  'persona.adult.note': 'Volljährig, mit gültigem PID (DE, geboren am 12.01.1984).',
  'persona.minor.label': 'Max Mustermann',
  'persona.minor.note': 'Minderjährig, mit gültigem PID (DE, 12 Jahre alt).',
  'persona.revoked.label': 'Erika Mustermann (widerrufener PID)',
  'persona.revoked.note': 'Der Aussteller hat den PID widerrufen (Statuslisten-Wert 1).',
  'persona.suspended.label': 'Erika Mustermann (ausgesetzter PID)',
  'persona.suspended.note': 'Der Aussteller hat den PID ausgesetzt (Statuslisten-Wert 2).',
  'persona.revoked_mdoc.label': 'Erika Mustermann (widerrufener mdoc-PID)',
  'persona.revoked_mdoc.note':
    'Zeigt den EU-PID als ISO-mdoc (oder den Altersnachweis), in seiner Token-Statusliste (CWT) widerrufen.',
  'persona.revoked_mdl.label': 'Erika Mustermann (widerrufener mobiler Führerschein)',
  'persona.revoked_mdl.note':
    'Zeigt den mDL, dessen Kennung in der ISO-18013-5-Kennungsliste des Ausstellers steht (widerrufen).',
  'persona.suspended_mdoc.label': 'Erika Mustermann (ausgesetzter mdoc-PID)',
  'persona.suspended_mdoc.note':
    'Zeigt den EU-PID als ISO-mdoc (oder den Altersnachweis), in seiner Token-Statusliste (CWT) ausgesetzt.',
  'persona.expired.label': 'Erika Mustermann (abgelaufener PID)',
  'persona.expired.note': 'Der PID ist vor einem Monat abgelaufen.',
  'persona.unknown_issuer.label': 'Erika Mustermann (unbekannter Aussteller)',
  'persona.unknown_issuer.note': 'Ein PID, signiert von einem Aussteller, dem keine Umgebung vertraut.',
  'persona.unknown_holder_key.label': 'Erika Mustermann (unbekannter Inhaberschlüssel)',
  'persona.unknown_holder_key.note':
    'Ein gültiger PID, aber die Wallet signiert mit einem Schlüssel, an den der Nachweis nicht gebunden ist (Schlüsselbindung ungültig).',
  'persona.adult_second_device.label': 'Erika Mustermann (zweites Gerät)',
  'persona.adult_second_device.note':
    'Ein gültiger PID derselben Person in einer anderen Wallet: anderer Inhaberschlüssel, gleicher Name und gleiches Geburtsdatum.',
  'persona.adult_mdoc.label': 'Erika Mustermann (mdoc-PID)',
  'persona.adult_mdoc.note':
    'Legt ISO-mdoc vor: den EU-PID (eu.europa.ec.eudi.pid.1) oder für eine Altersprüfung den EU-Altersnachweis.',
  'persona.adult_mdl.label': 'Erika Mustermann (mobiler Führerschein)',
  'persona.adult_mdl.note': 'Legt den mobilen Führerschein nach ISO 18013-5 vor (org.iso.18013.5.1.mDL).',
  'persona.minor_mdoc.label': 'Max Mustermann (mdoc-PID)',
  'persona.minor_mdoc.note':
    'Minderjährig (12), legt ISO-mdoc vor: den EU-PID oder für eine Altersprüfung den EU-Altersnachweis.',
  'persona.unknown_holder_key_mdoc.label': 'Erika Mustermann (unbekannter Inhaberschlüssel, mdoc-PID)',
  'persona.unknown_holder_key_mdoc.note':
    'Legt den EU-PID als ISO-mdoc vor (oder den Altersnachweis), aber die Gerätesignatur stammt von einem anderen Schlüssel als dem Geräteschlüssel des MSO.',
  // what happened, where it happened (issue 29)
  'steps.notDone': 'Nicht abgeschlossen',
  'steps.timedOut': 'Zeit abgelaufen',
  'state.stepExpiredTitle': 'Die Zeit für diesen Schritt ist abgelaufen',
  'state.stepExpiredText':
    'Jeder Schritt muss innerhalb seiner Frist abgeschlossen werden. Mit diesem Link ist nichts mehr möglich: Wenn Sie sich noch verifizieren müssen, bitten Sie {business} um einen neuen Link.',
  'failure.ageThreshold':
    'Ihre Wallet hat geantwortet, dass Sie nicht {threshold} Jahre oder älter sind. Deshalb kann {business} diese Verifizierung nicht fortsetzen. Geteilt wurde nur diese Ja-oder-Nein-Antwort, nicht Ihr Geburtsdatum. Wenn Sie das für einen Fehler halten, wenden Sie sich an {business}.',
  'failure.age':
    'Was Ihre Wallet geteilt hat, erfüllt die Altersvorgabe von {business} nicht, deshalb kann diese Verifizierung nicht fortgesetzt werden. Wenn Sie das für einen Fehler halten, wenden Sie sich an {business}.',
  'failure.nationality':
    '{business} kann die Staatsangehörigkeit in dem geteilten Nachweis nicht akzeptieren, deshalb kann diese Verifizierung nicht fortgesetzt werden. Wenn Sie das für einen Fehler halten, wenden Sie sich an {business}.',
  'failure.document':
    '{business} akzeptiert die Art von Dokument, die Sie für diesen Schritt geteilt haben, nicht, deshalb kann diese Verifizierung nicht fortgesetzt werden. Wenn Sie ein anderes Dokument haben, bitten Sie {business} um einen neuen Link.',
  'failure.condition':
    'Was Sie geteilt haben, erfüllt eine Vorgabe von {business} nicht, deshalb kann diese Verifizierung nicht fortgesetzt werden. Bei Fragen wenden Sie sich an {business}.',
  'failure.refused': 'Die Antworten Ihrer Wallet für diesen Schritt wurden zu oft abgelehnt.',
  'consent.signs': 'Sie unterschreiben:',
  'consent.approves': 'Sie stimmen diesen Bedingungen zu:',
  'viewer.zoom': 'Größere Schrift',

  // the same-device redirect back from the wallet (issue 26, ADR 0050; routes/WalletReturn.tsx)
  'return.title': 'Zurück aus Ihrer Wallet',
  'return.checking': 'Die Antwort Ihrer Wallet wird geprüft …',
  'return.linkUsed':
    'Dieser Rücksprung-Link wurde bereits verwendet oder ist abgelaufen. Öffnen Sie Ihren Verifizierungslink, um den aktuellen Stand zu sehen.',
  'return.openSession': 'Verifizierung öffnen',
  'error.redirect_other_browser':
    'Ihre Wallet hat Sie zu einem anderen Browser zurückgeschickt als dem, in dem diese Verifizierung gestartet wurde. Zu Ihrem Schutz wird hier nichts angezeigt: Kehren Sie zu dem Browser oder Gerät zurück, in dem Sie begonnen haben – dort wird Ihre Antwort angezeigt.',
};
