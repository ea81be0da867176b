/** The window's root component shows where the engine serves its data (read through the preload bridge). */
import { flushPromises, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import App from '../../../renderer/src/App.vue';

afterEach(() => {
  delete window.datasetHealth;
});

describe('App', () => {
  it('shows the local API URL and the data folder from the bridge', async () => {
    window.datasetHealth = {
      runtime: () =>
        Promise.resolve({ apiUrl: 'http://127.0.0.1:47800', dataDir: '/home/me/.config/Dataset Health' }),
    };
    const wrapper = mount(App);
    await flushPromises();
    expect(wrapper.text()).toContain('Local API: http://127.0.0.1:47800');
    expect(wrapper.text()).toContain('Data: /home/me/.config/Dataset Health');
  });

  it('renders without a bridge (opened outside the app)', async () => {
    const wrapper = mount(App);
    await flushPromises();
    expect(wrapper.find('h1').text()).toBe('Dataset Health');
    expect(wrapper.text()).not.toContain('Local API');
  });
});
