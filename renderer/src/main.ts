import { createPinia } from 'pinia';
import { createApp } from 'vue';
// Before the components, so their own styles win where they differ.
import './styles/common.css';
import './styles/chartFigure.css';
import App from './App.vue';
import { CLOCK, tickingClock } from './lib/clock';
import { RPC_CLIENT, defaultClient } from './rpc/client';
import { createAppRouter } from './router';

createApp(App)
  .provide(RPC_CLIENT, defaultClient())
  .provide(CLOCK, tickingClock())
  .use(createPinia())
  .use(createAppRouter())
  .mount('#app');
