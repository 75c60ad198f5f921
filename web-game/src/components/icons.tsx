/** Small inline SVG icons (no icon font, nothing fetched). */
import type { GameType } from '../app/launch';

const common = { width: 20, height: 20, viewBox: '0 0 24 24', 'aria-hidden': true, focusable: false } as const;

export function GameIcon({ game }: { game: GameType }) {
  switch (game) {
    case 'dice':
      return (
        <svg {...common}>
          <rect x="3" y="3" width="18" height="18" rx="4" fill="currentColor" opacity=".25" />
          <circle cx="8" cy="8" r="1.8" fill="currentColor" />
          <circle cx="16" cy="16" r="1.8" fill="currentColor" />
          <circle cx="12" cy="12" r="1.8" fill="currentColor" />
        </svg>
      );
    case 'limbo':
      return (
        <svg {...common}>
          <path d="M4 19 L10 11 L14 14 L20 5" stroke="currentColor" strokeWidth="2.4" fill="none" strokeLinecap="round" strokeLinejoin="round" />
          <path d="M15 5h5v5" stroke="currentColor" strokeWidth="2.4" fill="none" strokeLinecap="round" />
        </svg>
      );
    case 'plinko':
      return (
        <svg {...common}>
          {[
            [12, 5],
            [8, 10],
            [16, 10],
            [4, 15],
            [12, 15],
            [20, 15],
          ].map(([x, y]) => (
            <circle key={`${x}-${y}`} cx={x} cy={y} r="1.7" fill="currentColor" />
          ))}
          <rect x="3" y="19" width="18" height="2.5" rx="1" fill="currentColor" opacity=".5" />
        </svg>
      );
    case 'keno':
      return (
        <svg {...common}>
          {[4, 10, 16].flatMap((x) =>
            [4, 10, 16].map((y) => (
              <rect key={`${x}-${y}`} x={x} y={y} width="4.5" height="4.5" rx="1" fill="currentColor" opacity={x === 10 && y === 10 ? 1 : 0.45} />
            )),
          )}
        </svg>
      );
    case 'mines':
      return (
        <svg {...common}>
          <path d="M12 3 20 9 12 21 4 9Z" fill="currentColor" opacity=".85" />
          <path d="M4 9h16M12 3 9 9l3 12 3-12-3-6" stroke="#0b1220" strokeWidth="1" fill="none" opacity=".5" />
        </svg>
      );
    case 'blackjack':
      return (
        <svg {...common}>
          <rect x="3" y="5" width="11" height="15" rx="2" fill="currentColor" opacity=".45" transform="rotate(-10 8 12)" />
          <rect x="9" y="4" width="11" height="15" rx="2" fill="currentColor" />
          <path d="M14.5 8.5c1.6 1.7 3 2.7 3 4a1.6 1.6 0 0 1-3 .7 1.6 1.6 0 0 1-3-.7c0-1.3 1.4-2.3 3-4Z" fill="#0b1220" />
        </svg>
      );
  }
}

export function ShieldIcon() {
  return (
    <svg {...common}>
      <path d="M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5l-8-3Z" fill="currentColor" />
      <path d="m10.6 15.6-3.2-3.2 1.4-1.4 1.8 1.8 4.6-4.6 1.4 1.4-6 6Z" fill="#0b1220" />
    </svg>
  );
}

export function WalletIcon() {
  return (
    <svg {...common} width={16} height={16}>
      <path
        d="M3 7a3 3 0 0 1 3-3h11v3h1a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H6a3 3 0 0 1-3-3V7Zm3-1a1 1 0 0 0 0 2h9V6H6Zm10 7a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3Z"
        fill="currentColor"
      />
    </svg>
  );
}

export function ChartIcon() {
  return (
    <svg {...common}>
      <path d="M4 19V5M4 19h16" stroke="currentColor" strokeWidth="2" fill="none" strokeLinecap="round" />
      <path d="m7 15 4-5 3 3 5-6" stroke="currentColor" strokeWidth="2.2" fill="none" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function GearIcon() {
  return (
    <svg {...common}>
      {[0, 45, 90, 135, 180, 225, 270, 315].map((a) => (
        <rect key={a} x="10.6" y="2" width="2.8" height="4.5" rx="1" fill="currentColor" transform={`rotate(${a} 12 12)`} />
      ))}
      <circle cx="12" cy="12" r="6.2" fill="none" stroke="currentColor" strokeWidth="2.4" />
      <circle cx="12" cy="12" r="2.2" fill="currentColor" />
    </svg>
  );
}

const small = { ...common, width: 16, height: 16 } as const;

/** A tournament (issue 30). */
export function TrophyIcon() {
  return (
    <svg {...small}>
      <path d="M7 4h10v5a5 5 0 0 1-10 0V4Z" fill="currentColor" />
      <path d="M7 6H4v1.5A3.5 3.5 0 0 0 7.5 11M17 6h3v1.5A3.5 3.5 0 0 1 16.5 11" stroke="currentColor" strokeWidth="1.8" fill="none" />
      <path d="M12 14v4M8 20h8" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
    </svg>
  );
}

/** A prize drop, a prize won (issue 30). */
export function GiftIcon() {
  return (
    <svg {...small}>
      <rect x="3" y="9" width="18" height="4" rx="1" fill="currentColor" />
      <rect x="5" y="13" width="14" height="8" rx="1" fill="currentColor" opacity=".7" />
      <path d="M12 9v12" stroke="var(--bg, #0b1220)" strokeWidth="2" />
      <path d="M12 9C10 5 6.5 5 7 7.5S12 9 12 9Zm0 0c2-4 5.5-4 5-1.5S12 9 12 9Z" stroke="currentColor" strokeWidth="1.6" fill="none" />
    </svg>
  );
}
