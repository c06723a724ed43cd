import { useEffect, useRef, useState } from 'react';
import { getToken, setToken, setTokenAsker } from '../api/auth';

/**
 * Asks for the server's access token when a write (upload, save) is refused with 401, or when
 * opened from the top bar. Mounted once, in App.
 */
export function TokenDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [ask, setAsk] = useState<{ reason: string; resolve: (ok: boolean) => void } | null>(null);
  const [value, setValue] = useState('');
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    setTokenAsker((reason) => new Promise<boolean>((resolve) => setAsk({ reason, resolve })));
    return () => setTokenAsker(null);
  }, []);
  const shown = open || ask !== null;
  useEffect(() => {
    if (shown) {
      setValue(getToken() ?? '');
      requestAnimationFrame(() => ref.current?.focus());
    }
  }, [shown]);
  if (!shown) return null;
  const finish = (ok: boolean) => {
    if (ok) setToken(value.trim() || null);
    ask?.resolve(ok && value.trim() !== '');
    setAsk(null);
    onClose();
  };
  return (
    <div className="modal-backdrop" onClick={() => finish(false)}>
      <form
        className="modal token-modal"
        role="dialog"
        aria-label="Access token"
        onClick={(e) => e.stopPropagation()}
        onSubmit={(e) => {
          e.preventDefault();
          finish(true);
        }}
      >
        <div className="modal-head">
          <h2>Access token</h2>
          <button type="button" className="icon-button" onClick={() => finish(false)} aria-label="Close">
            ×
          </button>
        </div>
        <p>{ask?.reason ?? 'Uploads and saves on this server need its access token.'}</p>
        <p className="muted small">
          Whoever runs the server set it (<code>iolens serve --token-file FILE</code>). Reading notebooks and captures needs no token. It is kept in this browser only.
        </p>
        <input
          ref={ref}
          className="token-input"
          type="password"
          autoComplete="off"
          aria-label="Token"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && finish(false)}
        />
        <div className="modal-actions">
          <button type="submit" className="button primary" disabled={!value.trim()}>
            {ask ? 'Use token and retry' : 'Save token'}
          </button>
          {getToken() && (
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setValue('');
                setToken(null);
                ask?.resolve(false);
                setAsk(null);
                onClose();
              }}
            >
              Forget the token
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
