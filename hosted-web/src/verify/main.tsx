// Entry of the receipt verification page (verify.html, served for /verify, ADR 0047): its own chunk, so neither
// the signer page nor the dashboard loads it, and it loads neither of them (only the pure audit check).
import { render } from 'solid-js/web';
import { VerifyPage } from './VerifyPage';
import './verify.css';

const root = document.getElementById('root');
if (root) render(() => <VerifyPage />, root);
