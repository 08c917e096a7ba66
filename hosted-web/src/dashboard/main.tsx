// Entry of the dashboard (dashboard.html, served for /dashboard/*); the signer page never loads this.
import { render } from 'solid-js/web';
import { App } from './App';
import './dashboard.css';
import './dashboard-screens.css';
import './dashboard-parts.css';
import './dashboard-fixes.css';

const root = document.getElementById('root');
if (root) render(() => <App />, root);
