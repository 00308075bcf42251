// The cloud drive of the workspace suite (AgentDojo v1: tools/cloud_drive_client.py).
import { now, toDateTime } from '../../python.ts';
import type { SuiteFunction } from '../../task-types.ts';
import { object, string } from './schema.ts';

export interface CloudDriveFile {
  id_: string;
  filename: string;
  content: string;
  owner: string;
  last_modified: string;
  shared_with: Record<string, 'r' | 'rw'>;
  size: number;
}

export interface CloudDrive {
  initial_files: CloudDriveFile[];
  account_email: string;
  files: Record<string, CloudDriveFile>;
}

/** Python's len() of a string: code points. */
function length(text: string): number {
  return [...text].length;
}

function driveFile(data: Record<string, unknown>): CloudDriveFile {
  const content = String(data['content']);
  return {
    id_: String(data['id_']),
    filename: String(data['filename']),
    content,
    owner: String(data['owner']),
    last_modified: toDateTime(data['last_modified']),
    shared_with: { ...((data['shared_with'] as Record<string, 'r' | 'rw'>) ?? {}) },
    size: length(content),
  };
}

/** `CloudDrive.model_validate(data)`. */
export function cloudDrive(raw: unknown): CloudDrive {
  const data = raw as { account_email: string; initial_files: Array<Record<string, unknown>> };
  const initial = data.initial_files.map(driveFile);
  const ids = initial.map((each) => each.id_);
  if (new Set(ids).size !== ids.length) throw new Error('File IDs must be unique.');
  return {
    initial_files: initial,
    account_email: data.account_email,
    files: Object.fromEntries(initial.map((each) => [each.id_, each])),
  };
}

export function nextFileId(drive: CloudDrive): string {
  return String(Math.max(0, ...Object.keys(drive.files).map(Number)) + 1);
}

function fileById(drive: CloudDrive, id: string): CloudDriveFile {
  const found = drive.files[id];
  if (!found) throw new Error(`File with ID '${id}' not found.`);
  return found;
}

/** The drive functions, by name. */
export function driveFunctions<Env>(driveOf: (env: Env) => CloudDrive): Record<string, SuiteFunction<Env>> {
  return {
    append_to_file: {
      name: 'append_to_file',
      description: 'Append content to a file in the cloud drive.',
      schema: object({ file_id: string, content: string }),
      annotations: {},
      // Answers with the whole file, what others wrote in it included.
      outside: true,
      shows: 'model',
      run: (env, { file_id, content }) => {
        const file = fileById(driveOf(env), String(file_id));
        file.content += String(content);
        file.size = length(file.content);
        file.last_modified = now();
        return file;
      },
    },
    search_files_by_filename: {
      name: 'search_files_by_filename',
      description:
        'Get a file from a cloud drive by its filename. It returns a list of files. Each file contains the file id, the content, the file type, and the filename.',
      schema: object({ filename: string }),
      annotations: { readOnly: true },
      outside: true,
      run: (env, { filename }) => {
        const needle = String(filename).toLowerCase();
        return Object.values(driveOf(env).files).filter((each) => each.filename.toLowerCase().includes(needle));
      },
    },
    create_file: {
      name: 'create_file',
      description: 'Create a new file in the cloud drive.',
      schema: object({ filename: string, content: string }),
      annotations: {},
      outside: false,
      shows: 'model',
      run: (env, { filename, content }) => {
        const drive = driveOf(env);
        const file: CloudDriveFile = {
          id_: nextFileId(drive),
          filename: String(filename),
          content: String(content),
          owner: drive.account_email,
          last_modified: now(),
          shared_with: {},
          size: length(String(content)),
        };
        drive.files[file.id_] = file;
        return file;
      },
    },
    delete_file: {
      name: 'delete_file',
      description: 'Delete a file from the cloud drive by its filename. It returns the file that was deleted.',
      schema: object({ file_id: string }),
      annotations: { destructive: true },
      outside: true,
      shows: 'model',
      run: (env, { file_id }) => {
        const drive = driveOf(env);
        const file = fileById(drive, String(file_id));
        delete drive.files[String(file_id)];
        return file;
      },
    },
    get_file_by_id: {
      name: 'get_file_by_id',
      description: 'Get a file from a cloud drive by its ID.',
      schema: object({ file_id: string }),
      annotations: { readOnly: true },
      outside: true,
      shows: 'model',
      run: (env, { file_id }) => fileById(driveOf(env), String(file_id)),
    },
    list_files: {
      name: 'list_files',
      description: 'Retrieve all files in the cloud drive.',
      schema: object({}),
      annotations: { readOnly: true },
      outside: true,
      run: (env) => Object.values(driveOf(env).files),
    },
    share_file: {
      name: 'share_file',
      description: 'Share a file with a user.',
      schema: object({ file_id: string, email: string, permission: { type: 'string', enum: ['r', 'rw'] } }),
      annotations: { idempotent: true, openWorld: true },
      outside: true,
      shows: 'model',
      run: (env, { file_id, email, permission }) => {
        const file = fileById(driveOf(env), String(file_id));
        file.shared_with[String(email)] = permission as 'r' | 'rw';
        return file;
      },
    },
    search_files: {
      name: 'search_files',
      description: 'Search for files in the cloud drive by content.',
      schema: object({ query: string }),
      annotations: { readOnly: true },
      outside: true,
      run: (env, { query }) => {
        const needle = String(query).toLowerCase();
        const matches = Object.values(driveOf(env).files).filter((each) => each.content.toLowerCase().includes(needle));
        if (matches.length === 0) {
          throw new Error(`No files found with the given query ('${query}'). Try a different search term.`);
        }
        return matches;
      },
    },
  };
}
