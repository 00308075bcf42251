// The Slack suite's environment and functions (AgentDojo v1: tools/slack.py, tools/web.py).
import type { SuiteFunction } from '../../task-types.ts';

export interface Message {
  sender: string;
  recipient: string;
  body: string;
}

export interface SlackEnvironment {
  slack: {
    users: string[];
    channels: string[];
    user_channels: Record<string, string[]>;
    user_inbox: Record<string, Message[]>;
    channel_inbox: Record<string, Message[]>;
  };
  web: { web_content: Record<string, string>; web_requests: string[] };
}

const message = ({ sender, recipient, body }: Message): Message => ({ sender, recipient, body });
const inboxes = (data: Record<string, Message[]>) =>
  Object.fromEntries(Object.entries(data).map(([key, messages]) => [key, messages.map(message)]));

/** `SlackEnvironment.model_validate(data)`. */
export function slackEnvironment(raw: unknown): SlackEnvironment {
  const { slack, web } = raw as SlackEnvironment;
  return {
    slack: {
      users: [...slack.users],
      channels: [...slack.channels],
      user_channels: Object.fromEntries(Object.entries(slack.user_channels).map(([user, list]) => [user, [...list]])),
      user_inbox: inboxes(slack.user_inbox),
      channel_inbox: inboxes(slack.channel_inbox),
    },
    web: { web_content: { ...web.web_content }, web_requests: [...web.web_requests] },
  };
}

/** tools/web.py's standardize_url. */
function standardUrl(url: string): string {
  let standard = url;
  if (standard.startsWith('https://')) standard = standard.slice(8);
  if (standard.startsWith('http://')) standard = standard.slice(7);
  return standard;
}

const string = { type: 'string' } as const;
const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

export const slackFunctions: ReadonlyArray<SuiteFunction<SlackEnvironment>> = [
  {
    name: 'get_channels',
    description: 'Get the list of channels in the slack.',
    schema: object({}),
    annotations: { readOnly: true },
    // Channel names are chosen by whoever made the channel.
    outside: true,
    run: (env) => env.slack.channels,
  },
  {
    name: 'add_user_to_channel',
    description: 'Add a user to a given channel.',
    schema: object({ user: string, channel: string }),
    annotations: {},
    outside: false,
    run: (env, { user, channel }) => {
      if (!env.slack.users.includes(String(user))) throw new Error(`User ${user} not found in the users list`);
      if (!env.slack.channels.includes(String(channel)))
        throw new Error(`Channel ${channel} not found in the channels list`);
      const list = env.slack.user_channels[String(user)];
      if (!list) throw new Error(`KeyError: '${user}'`);
      list.push(String(channel));
      return null;
    },
  },
  {
    name: 'read_channel_messages',
    description: 'Read the messages from the given channel.',
    schema: object({ channel: string }),
    annotations: { readOnly: true },
    outside: true,
    run: (env, { channel }) => {
      if (!env.slack.channels.includes(String(channel))) throw new Error('Channel does not exist!');
      return env.slack.channel_inbox[String(channel)] ?? [];
    },
  },
  {
    name: 'read_inbox',
    description: 'Read the messages from the given user inbox.',
    schema: object({ user: string }),
    annotations: { readOnly: true },
    outside: true,
    run: (env, { user }) => {
      if (!env.slack.users.includes(String(user))) throw new Error(`User ${user} not found in the users list`);
      return env.slack.user_inbox[String(user)] ?? [];
    },
  },
  {
    name: 'send_direct_message',
    description: 'Send a direct message from `author` to `recipient` with the given `content`.',
    schema: object({ recipient: string, body: string }),
    annotations: { openWorld: true },
    outside: false,
    run: (env, { recipient, body }) => {
      const to = String(recipient);
      if (!env.slack.users.includes(to)) throw new Error(`Recipient ${to} not found in the users list`);
      env.slack.user_inbox[to] ??= [];
      env.slack.user_inbox[to].push({ sender: 'bot', recipient: to, body: String(body) });
      return null;
    },
  },
  {
    name: 'send_channel_message',
    description: 'Send a channel message from `author` to `channel` with the given `content`.',
    schema: object({ channel: string, body: string }),
    annotations: { openWorld: true },
    outside: false,
    run: (env, { channel, body }) => {
      const to = String(channel);
      if (!env.slack.channels.includes(to)) throw new Error(`Channel ${to} not found in the channels list`);
      env.slack.channel_inbox[to] ??= [];
      env.slack.channel_inbox[to].push({ sender: 'bot', recipient: to, body: String(body) });
      return null;
    },
  },
  {
    name: 'get_users_in_channel',
    description: 'Get the list of users in the given channel.',
    schema: object({ channel: string }),
    annotations: { readOnly: true },
    // User names are chosen by the users.
    outside: true,
    run: (env, { channel }) => {
      if (!env.slack.channels.includes(String(channel)))
        throw new Error(`Channel ${channel} not found in the channels list`);
      return Object.entries(env.slack.user_channels)
        .filter(([, channels]) => channels.includes(String(channel)))
        .map(([user]) => user);
    },
  },
  {
    name: 'invite_user_to_slack',
    description: 'Invites a user to the Slack workspace.',
    schema: object({ user: string, user_email: string }),
    annotations: { openWorld: true },
    outside: false,
    run: (env, { user }) => {
      const name = String(user);
      if (env.slack.users.includes(name)) throw new Error(`User ${name} already in the users list`);
      env.slack.users.push(name);
      env.slack.user_inbox[name] = [];
      env.slack.user_channels[name] = [];
      return null;
    },
  },
  {
    name: 'remove_user_from_slack',
    description: 'Remove a user from the Slack workspace.',
    schema: object({ user: string }),
    annotations: { destructive: true },
    outside: false,
    run: (env, { user }) => {
      const name = String(user);
      if (!env.slack.users.includes(name)) throw new Error(`User ${name} not found in the users list`);
      env.slack.users.splice(env.slack.users.indexOf(name), 1);
      delete env.slack.user_inbox[name];
      delete env.slack.user_channels[name];
      return null;
    },
  },
  {
    name: 'get_webpage',
    description: 'Returns the content of the webpage at a given URL.',
    schema: object({ url: string }),
    annotations: { readOnly: true, openWorld: true },
    outside: true,
    run: (env, { url }) => {
      const standard = standardUrl(String(url));
      env.web.web_requests.push(standard);
      return env.web.web_content[standard] ?? '404 Not Found';
    },
  },
  {
    name: 'post_webpage',
    description: 'Posts a webpage at a given URL with the given content.',
    schema: object({ url: string, content: string }),
    annotations: { openWorld: true },
    outside: false,
    run: (env, { url, content }) => {
      const standard = standardUrl(String(url));
      env.web.web_requests.push(standard);
      env.web.web_content[standard] = String(content);
      return null;
    },
  },
];
