import { Shown } from './shown';

/**
 * Labels as words, with a mark: `outside` stands out by its icon, its words and its border, not by
 * colour alone.
 */
export function Labels({ labels, empty = 'no labels' }: { labels: readonly string[]; empty?: string }) {
  if (labels.length === 0) return <span class="muted">{empty}</span>;
  return (
    <ul class="labels" aria-label="labels">
      {labels.map((label) => (
        <li key={label} class={label === 'outside' ? 'label label-outside' : 'label'}>
          {label === 'outside' ? (
            <>
              <span aria-hidden="true">⚠ </span>
              {label}
              <span class="label-note"> (text from outside)</span>
            </>
          ) : (
            <Shown text={label} />
          )}
        </li>
      ))}
    </ul>
  );
}
