// AgentDojo's four suites through Wardrik (issue 31). Run with `npm run bench -- agentdojo`.
export { main } from './agentdojo/bench.ts';
