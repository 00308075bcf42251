/**
 * Where the keyboard focus goes once a park has been answered from its card: the next open park
 * below it (the card, which reads out its heading; Tab goes on to its controls), else the nearest
 * open one above, else the page's home (its heading, marked `data-focus-home`). Never `<body>`.
 */
export function focusNextPark(from: HTMLElement | null): void {
  const open = [...document.querySelectorAll<HTMLElement>('article.park[data-open]')].filter((each) => each !== from);
  const below =
    from === null
      ? undefined
      : open.find((each) => (from.compareDocumentPosition(each) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0);
  const target = below ?? open.at(-1) ?? document.querySelector<HTMLElement>('[data-focus-home]');
  target?.focus();
}

/** Whether the focus is nowhere (`<body>`) or inside `element`: then it may be moved without taking it from where a person put it. */
export function focusIsLostOrIn(element: HTMLElement | null): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || element?.contains(active) === true;
}
