export { MemoryStore, memoryStore } from '../store/memory-store.js';
export { lastToolResults, type Script, ScriptedModel, type ScriptedStep, type ScriptedTurn } from './scripted-model.js';
