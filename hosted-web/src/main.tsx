// Entry of the hosted session page.
import { render } from 'solid-js/web';
import { App } from './App';
import './styles.css';
import './session-parts.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
render(() => <App />, root);
