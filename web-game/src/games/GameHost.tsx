/** Picks the game's component; remounted for every session and game (a switch starts clean). */
import { useEffect } from 'react';
import type { GameType } from '../app/launch';
import { Blackjack } from './Blackjack';
import { Dice } from './Dice';
import { Keno } from './Keno';
import { Limbo } from './Limbo';
import { Mines } from './Mines';
import { Plinko } from './Plinko';

const GAMES: Record<GameType, () => React.JSX.Element> = { dice: Dice, limbo: Limbo, plinko: Plinko, keno: Keno, mines: Mines, blackjack: Blackjack };

export function GameHost({ game, onUnmount }: { game: GameType; onUnmount(): void }) {
  useEffect(() => onUnmount, [onUnmount]);
  const Game = GAMES[game];
  return <Game />;
}
