export { onAbort } from '../shared/on-abort.js';
