export { onAbort } from '../abort/on-abort.js';
