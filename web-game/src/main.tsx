/** The entry of /game.html. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { parseLaunch } from './app/launch';
import './styles/game.css';

const launch = parseLaunch(window.location.search);
document.documentElement.classList.toggle('is-fill', launch.fill);
document.documentElement.classList.toggle('is-embed', launch.embed);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App launch={launch} />
  </StrictMode>,
);
