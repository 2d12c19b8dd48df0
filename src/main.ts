/** Process entry (`npm start`): racewire as a process, with nothing injected (serve.ts). */
import { serve } from './serve.js';

void serve();
