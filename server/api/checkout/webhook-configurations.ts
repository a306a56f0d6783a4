import {
  createConfiguration,
  deleteConfiguration,
  getConfiguration,
  listConfigurations,
  updateConfiguration,
} from '../../domain/webhooks/configuration.service.js';
import { listDeliveries, resendDelivery, sendTestEvent } from '../../domain/webhooks/delivery-log.js';
import { trailOf } from '../audit.js';
import { created, deliverySettings, listOf, ok, pageOf } from '../kit.js';
import type { AppDeps, CheckoutHandlers } from '../types.js';
import { configurationView, deliveryView } from './views/webhook.view.js';

// Webhook configurations belong to the merchant and are shared by its test and live keys (the
// contract's design); the delivery log and re-sends are per mode.
const urlPolicy = (deps: AppDeps) => ({ allowLoopback: deps.config.allowLoopbackWebhooks });

export const webhookConfigurationHandlers: CheckoutHandlers = {
  async createWebhookConfiguration(input) {
    const { db, deps, tenant, body } = input;
    const row = await createConfiguration(db, deps.clock, urlPolicy(deps), tenant, body, trailOf(input));
    return created({ ...configurationView(row), sandboxSecret: row.sandbox_secret, liveSecret: row.live_secret });
  },
  async listWebhookConfigurations({ db, tenant, query }) {
    return ok(listOf(await listConfigurations(db, tenant, pageOf(query, 25)), configurationView));
  },
  async retrieveWebhookConfiguration({ db, tenant, path }) {
    return ok(configurationView(await getConfiguration(db, tenant, path.id)));
  },
  async updateWebhookConfiguration(input) {
    const { db, deps, tenant, path, body } = input;
    const { row, generated } = await updateConfiguration(db, deps.clock, urlPolicy(deps), tenant, path.id, body, trailOf(input));
    return ok({ ...configurationView(row), ...generated });
  },
  async deleteWebhookConfiguration(input) {
    const { db, tenant, path } = input;
    await deleteConfiguration(db, tenant, path.id, trailOf(input));
    return ok({ id: path.id, object: 'webhook_configuration' as const, deleted: true as const });
  },
  async sendWebhookTestEvent({ db, deps, tenant, path, body }) {
    return ok(await sendTestEvent(db, deps.clock, deliverySettings(deps), tenant, path.id, body));
  },
  async listWebhookDeliveries({ db, tenant, path, query }) {
    return ok(listOf(await listDeliveries(db, tenant, path.id, { ...pageOf(query, 25), status: query.status, eventType: query.eventType }), deliveryView));
  },
  async resendWebhookDelivery({ db, deps, tenant, path }) {
    return ok(deliveryView(await resendDelivery(db, deps.clock, deliverySettings(deps), tenant, path.id, path.deliveryId)));
  },
};
