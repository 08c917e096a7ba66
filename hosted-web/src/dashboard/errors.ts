// The one map from a server error code to the copy the dashboard shows. Unknown codes fall back to the
// server's own title (it is written for people), then to a generic line.
const COPY: Record<string, string> = {
  unauthenticated: 'You are signed out. Sign in again to continue.',
  dashboard_user_required: 'This needs a signed-in dashboard user.',
  role_insufficient: 'Your role does not allow this in this environment.',
  csrf_token_invalid: 'Your session changed in another tab. Reload the page and try again.',
  invitation_invalid: 'This invitation link is invalid, already used, revoked or expired. Ask for a new one.',
  sign_in_link_invalid: 'This sign-in link is invalid, already used or expired. Request a new one.',
  passkey_invalid: 'The passkey could not be verified. Try again or use an emailed link.',
  email_in_use: 'This email address already has an account.',
  validation_failed: 'Some input is not valid.',
  not_found: 'Not found in this environment.',
  rate_limited: 'Too many attempts. Wait a moment and try again.',
  service_unavailable: 'The service is temporarily unavailable. Try again in a moment.',
  network_error: 'The service cannot be reached. Check your connection.',
  webhook_url_invalid:
    'This URL cannot receive webhooks: use https on a public host (sandbox also allows private hosts where enabled).',
  passkey_cancelled: 'The passkey prompt was closed before it finished.',
  // workflows screen
  workflow_not_found: 'This workflow does not exist in this environment.',
  workflow_invalid: 'The workflow cannot be saved or published as it is: check each step.',
  workflow_not_published: 'This workflow has no published revision yet.',
  workflow_api_only:
    'This workflow is set to API-only access: its sessions are created with an API key. Untick the box and publish to create them here.',
  // webhooks screen
  webhook_endpoint_required: 'Save a webhook endpoint first: there is nowhere to send to yet.',
  sandbox_only: 'This works in the sandbox only. Switch the environment to sandbox to use it.',
  // any screen
  forbidden: 'You are not allowed to do this.',
  internal_error: 'Something went wrong on our side. Try again; if it keeps failing, tell support the code.',
  // branding screen
  branding_contrast_insufficient:
    'White button text on this accent colour is too hard to read (WCAG AA needs 4.5:1). Choose a darker colour.',
  logo_type_unsupported:
    'The logo must be a PNG, JPEG or WebP image. SVG and other formats are not accepted.',
  logo_too_large: 'The logo file is larger than 256 KiB. Export it smaller and try again.',
  logo_dimensions_invalid: 'The logo must be 16 to 2048 pixels on each side.',
  // sessions screen: a sign workflow's files
  documents_required: 'This workflow signs documents: choose a PDF for each document field.',
  unsupported_media_type: 'A file is not of a type this document takes (a PDF). Choose the file again.',
  return_url_not_allowed: 'The return URL is not on an origin registered for this environment.',
};

export function errorCopy(code: string, fallback?: string): string {
  return COPY[code] ?? fallback ?? 'Something went wrong. Try again.';
}
