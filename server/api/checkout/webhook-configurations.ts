import { listDeliveries, resendDelivery, sendTestEvent } from '../../domain/webhooks/delivery.service.js';
import { configurationToCheckout } from '../../domain/webhooks/webhook.mapper.js';
import { createConfiguration, deleteConfiguration, getConfiguration, listConfigurations, updateConfiguration } from '../../domain/webhooks/webhook.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { AppDeps, CheckoutHandlers } from '../types.js';

// Webhook configurations belong to the merchant and are shared by its test and live keys (the
// contract's design); the delivery log and re-sends are per mode.
const owner = (auth: AuthContext) => ({ merchantId: merchantOf(auth) });
const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });
const urlPolicy = (deps: AppDeps) => ({ allowLoopback: deps.config.allowLoopbackWebhooks });

export const webhookConfigurationHandlers: CheckoutHandlers = {
  async createWebhookConfiguration({ db, deps, auth, body }) {
    const row = await createConfiguration(db, deps.clock, urlPolicy(deps), owner(auth), body);
    return { status: 201, body: { ...configurationToCheckout(row), sandboxSecret: row.sandbox_secret, liveSecret: row.live_secret } };
  },
  async listWebhookConfigurations({ db, auth, query }) {
    const page = await listConfigurations(db, owner(auth), { limit: query.limit ?? 25, startingAfter: query.startingAfter });
    return { status: 200, body: { object: 'list', data: page.data.map(configurationToCheckout), hasMore: page.hasMore } };
  },
  async retrieveWebhookConfiguration({ db, auth, path }) {
    return { status: 200, body: configurationToCheckout(await getConfiguration(db, owner(auth), path.id)) };
  },
  async updateWebhookConfiguration({ db, deps, auth, path, body }) {
    const { row, generated } = await updateConfiguration(db, deps.clock, urlPolicy(deps), owner(auth), path.id, body);
    return { status: 200, body: { ...configurationToCheckout(row), ...generated } };
  },
  async deleteWebhookConfiguration({ db, auth, path }) {
    await deleteConfiguration(db, owner(auth), path.id);
    return { status: 200, body: { id: path.id, object: 'webhook_configuration', deleted: true } };
  },
  async sendWebhookTestEvent({ db, deps, auth, path, body }) {
    return { status: 200, body: await sendTestEvent(db, deps.clock, deps.config, owner(auth), path.id, body) };
  },
  async listWebhookDeliveries({ db, auth, path, query }) {
    const page = await listDeliveries(db, caller(auth), path.id, { limit: query.limit ?? 25, startingAfter: query.startingAfter, status: query.status, eventType: query.eventType });
    return { status: 200, body: { object: 'list', data: page.data, hasMore: page.hasMore } };
  },
  async resendWebhookDelivery({ db, deps, auth, path }) {
    return { status: 200, body: await resendDelivery(db, deps.clock, deps.config, caller(auth), path.id, path.deliveryId) };
  },
};
