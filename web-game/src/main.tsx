/** The entry of /game.html: the language first (`lang`), then a game launch or a replay (`replay=<roundId>`). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { parseLaunch } from './app/launch';
import { setupI18n } from './i18n';
import { Replay } from './replay/Replay';
import './styles/game.css';
import './styles/responsible-gaming.css';

const launch = parseLaunch(window.location.search);
setupI18n(launch.lang);
document.documentElement.classList.toggle('is-fill', launch.fill);
document.documentElement.classList.toggle('is-embed', launch.embed);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {launch.replay !== null ? (
      <div className={`gp-app ${launch.embed ? 'is-embed' : 'is-standalone'} is-natural`} data-phase="replay">
        <Replay roundId={launch.replay} />
      </div>
    ) : (
      <App launch={launch} />
    )}
  </StrictMode>,
);
