import { StoreError } from '../errors.js';
import { JOURNAL_VERSION, type StoredRecord } from './records.js';

/**
 * Checks that every record is of a format version this code reads, upgrading older ones.
 * Version 1 is the first; when a later version changes a record, its upgrade goes here, and the
 * fixtures in `test/fixtures/journal-v1.json` keep proving that old journals still load.
 */
export function checkJournal(runId: string, journal: readonly StoredRecord[]): StoredRecord[] {
  return journal.map((stored) => {
    const version = stored.record.v;
    if (typeof version !== 'number' || version < 1 || version > JOURNAL_VERSION) {
      throw new StoreError(
        `run ${runId}, record ${stored.seq}: journal format version ${String(version)} is not one this Wardrik reads (1 to ${JOURNAL_VERSION})`,
      );
    }
    return stored;
  });
}
