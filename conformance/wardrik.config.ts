// The config `conformance/run.sh` serves to the MCP conformance suite's server scenarios
// (@modelcontextprotocol/conformance): agent `everything`, whose tools are the suite's fixtures
// (as the SDKs' "everything" servers have them), offered one by one through the MCP gateway under
// their own names (`test_simple_text`, …). Every call is a durable run of `everything.gateway`,
// journaled and gated as any. The suite connects without a token: callers without one are taken as
// principal `conformance` (run.sh creates it), which this config alone allows, on 127.0.0.1 only.
// Runs are kept in conformance/.wardrik (git-ignored; run.sh starts it afresh).
import { setTimeout as sleep } from 'node:timers/promises';
import { park, tool } from '@wardrik/core';
import { defineAgent, defineConfig } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

/** A 1×1 red PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A WAV file with no samples. */
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** A tool that takes no arguments and answers `value` (content blocks are answered as such). */
function fixed(name: string, description: string, value: unknown) {
  return tool({ name, description, annotations: { readOnly: true }, run: () => value });
}

/** A tool that asks the person (over MCP: the caller, as an elicitation) to fill in `requestedSchema`. */
function asks(name: string, description: string, message: string, requestedSchema: Record<string, unknown>) {
  return tool({
    name,
    description,
    annotations: { readOnly: true },
    run: () => park(message, { details: { requestedSchema } }),
  });
}

const tools = [
  fixed('test_simple_text', 'Answers with text.', 'This is a simple text response for testing.'),
  fixed('test_image_content', 'Answers with an image.', [{ type: 'image', data: PNG, mimeType: 'image/png' }]),
  fixed('test_audio_content', 'Answers with audio.', [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]),
  fixed('test_embedded_resource', 'Answers with an embedded resource.', [
    {
      type: 'resource',
      resource: {
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      },
    },
  ]),
  fixed('test_multiple_content_types', 'Answers with text, an image and a resource.', [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: {
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: JSON.stringify({ test: 'data', value: 123 }),
      },
    },
  ]),
  tool({
    name: 'test_tool_with_logging',
    description: 'Takes a moment (the server logs the run’s steps to a client that set the level to debug).',
    annotations: { readOnly: true },
    run: async () => {
      await sleep(50);
      await sleep(50);
      return 'Tool with logging executed successfully';
    },
  }),
  tool({
    name: 'test_tool_with_progress',
    description: 'Reports its progress: 0, 50 and 100 of 100.',
    annotations: { readOnly: true },
    run: async (_args, context) => {
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        context.reportProgress(progress, { total: 100, message: `Completed step ${progress} of 100` });
      }
      return 'Progress reported';
    },
  }),
  tool({
    name: 'test_error_handling',
    description: 'Always fails.',
    annotations: { readOnly: true },
    run: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  }),
  tool({
    name: 'test_elicitation',
    description: 'Asks the caller (the message given) for a user name and an email.',
    schema: { message: { type: 'string', required: true, doc: 'The message to show the user' } },
    annotations: { readOnly: true },
    run: ({ message }) =>
      park(message, {
        details: {
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        },
      }),
  }),
  tool({
    name: 'test_sampling',
    description: 'Asks the caller’s model (sampling/createMessage) to answer the prompt given.',
    schema: { prompt: { type: 'string', required: true, doc: 'The prompt to send to the LLM' } },
    annotations: { readOnly: true },
    run: async ({ prompt }, context) => {
      // Over MCP the gateway asks the client that called; its answer is labelled `outside`.
      const { text } = await context.sample({ messages: [{ role: 'user', text: prompt as string }], maxTokens: 100 });
      return `LLM response: ${text}`;
    },
  }),
  asks(
    'test_elicitation_sep1034_defaults',
    'Asks the caller for fields that have defaults (SEP-1034).',
    'Please review and update the form fields with defaults',
    {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: {
          type: 'string',
          description: 'User status',
          enum: ['active', 'inactive', 'pending'],
          default: 'active',
        },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    },
  ),
  asks(
    'test_elicitation_sep1330_enums',
    'Asks the caller to choose, in each of the enum forms (SEP-1330).',
    'Please select options from the enum fields',
    {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string',
          description: 'Select one option with titles',
          oneOf: [
            { const: 'value1', title: 'First Option' },
            { const: 'value2', title: 'Second Option' },
            { const: 'value3', title: 'Third Option' },
          ],
        },
        legacyEnum: {
          type: 'string',
          description: 'Select one option (legacy)',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          description: 'Select multiple options',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: {
            anyOf: [
              { const: 'value1', title: 'First Choice' },
              { const: 'value2', title: 'Second Choice' },
              { const: 'value3', title: 'Third Choice' },
            ],
          },
        },
      },
      required: [],
    },
  ),
  tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    annotations: { readOnly: true },
    run: (args) => ({ received: args }),
  }),
  fixed(
    'test_reconnection',
    'Answers at once (SEP-1699: the suite reconnects if the server closes the stream mid-call).',
    'Reconnection test completed successfully.',
  ),
];

/** The fixtures' agent. It is served through the gateway only; its own model never runs. */
const everything = defineAgent({
  name: 'everything',
  description: 'The MCP conformance suite’s fixtures.',
  instructions: 'Not run: its tools are called one by one through the MCP gateway.',
  model: new ScriptedModel(() => ({ text: 'The conformance fixtures are called as tools, not through this agent.' })),
  tools,
});

export default defineConfig({
  agents: [everything],
  mcp: {
    agents: [],
    gateway: ['everything'],
    gatewayPrefix: false,
    unauthenticated: { principal: 'conformance' },
  },
});
