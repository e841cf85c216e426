import { useEffect, useState } from 'react';

/** How long an announcement stays in the live region after it was read out. */
export const ANNOUNCEMENT_CLEAR_MS = 3000;

/**
 * What the panel's polite live region holds: `message` when it changes, cleared a few
 * seconds later. Screen readers read a live region when its text changes; text left there
 * would be read a second time by a reader browsing the dialog (the answer is already in the
 * conversation). Written by hand rather than with a live-announcer library: those put their
 * regions at the end of <body>, which is inert while the panel is full screen.
 */
export function useLiveAnnouncement(message: string): string {
  const [shown, setShown] = useState('');
  useEffect(() => {
    setShown(message);
    if (message === '') return undefined;
    const timer = setTimeout(() => setShown(''), ANNOUNCEMENT_CLEAR_MS);
    return () => clearTimeout(timer);
  }, [message]);
  return shown;
}
