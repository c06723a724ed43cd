import { useEffect, useState } from 'react';

let show: ((msg: string) => void) | null = null;

/** Show a short message at the bottom of the window. */
export function flash(msg: string): void {
  show?.(msg);
}

export function Toast() {
  const [msg, setMsg] = useState<{ text: string; n: number } | null>(null);
  useEffect(() => {
    show = (text) => setMsg((m) => ({ text, n: (m?.n ?? 0) + 1 }));
    return () => {
      show = null;
    };
  }, []);
  useEffect(() => {
    if (!msg) return;
    const t = setTimeout(() => setMsg(null), 2500);
    return () => clearTimeout(t);
  }, [msg]);
  return msg ? (
    <div className="toast" role="status" key={msg.n}>
      {msg.text}
    </div>
  ) : null;
}
