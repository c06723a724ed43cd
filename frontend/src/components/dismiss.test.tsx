// @vitest-environment happy-dom
// useDismiss: a menu at the pointer closes on a click elsewhere, a scroll, or Escape, and its Escape comes
// before the shortcut registry's and an element's own (the difference view's menu stayed open on Escape,
// in the React build as in the Preact one).
import { cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, expect, test, vi } from 'vitest';
import { useDismiss } from './dismiss';
import { installShortcuts, useShortcut } from './shortcuts';

afterEach(cleanup);

function Page({ onClose, onChartKey }: { onClose: () => void; onChartKey: () => void }) {
  useDismiss(onClose);
  return (
    <div>
      <canvas
        data-testid="chart"
        tabIndex={0}
        onKeyDown={(e) => {
          onChartKey();
          e.stopPropagation();
        }}
      />
      <div data-testid="menu" onClick={(e) => e.stopPropagation()}>
        <button type="button">sandwich</button>
      </div>
      <div data-testid="scroller" style={{ overflow: 'auto' }} />
    </div>
  );
}

test('Escape on the focused chart closes the menu, and the chart does not see it', () => {
  const onClose = vi.fn();
  const onChartKey = vi.fn();
  const view = render(<Page onClose={onClose} onChartKey={onChartKey} />);
  const chart = view.getByTestId('chart');
  chart.focus();
  fireEvent.keyDown(chart, { key: 'Escape' });
  expect(onClose).toHaveBeenCalledTimes(1);
  expect(onChartKey).not.toHaveBeenCalled();
  fireEvent.keyDown(chart, { key: 'ArrowLeft' }); // other keys are the chart's
  expect(onChartKey).toHaveBeenCalledTimes(1);
  expect(onClose).toHaveBeenCalledTimes(1);
});

test('a click elsewhere or a scroll closes it; a click in the menu does not', () => {
  const onClose = vi.fn();
  const view = render(<Page onClose={onClose} onChartKey={() => {}} />);
  fireEvent.click(view.getByText('sandwich'));
  expect(onClose).not.toHaveBeenCalled();
  fireEvent.click(document.body);
  expect(onClose).toHaveBeenCalledTimes(1);
  fireEvent.scroll(view.getByTestId('scroller'));
  expect(onClose).toHaveBeenCalledTimes(2);
});

function ZoomOut({ onZoomOut }: { onZoomOut: () => void }) {
  useShortcut('Escape', onZoomOut);
  return null;
}

test("Escape closes the menu even when a view's Escape was registered after it, and does not zoom out", () => {
  const uninstall = installShortcuts();
  try {
    const onClose = vi.fn();
    const onZoomOut = vi.fn();
    const view = render(<Page onClose={onClose} onChartKey={() => {}} />);
    view.rerender(
      <>
        <Page onClose={onClose} onChartKey={() => {}} />
        <ZoomOut onZoomOut={onZoomOut} />
      </>,
    );
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onZoomOut).not.toHaveBeenCalled();
  } finally {
    uninstall();
  }
});

test('unmounted, it listens no more', () => {
  const onClose = vi.fn();
  const view = render(<Page onClose={onClose} onChartKey={() => {}} />);
  view.unmount();
  fireEvent.keyDown(document.body, { key: 'Escape' });
  fireEvent.click(document.body);
  expect(onClose).not.toHaveBeenCalled();
});
