import { activateLink, createLink, deactivateLink, getLink, listLinks, removeLink, updateLinkFields } from '../../domain/links/link.service.js';
import { compileQuery } from '../../odata/index.js';
import { created, noContent, ok } from '../kit.js';
import type { AppDeps, CommerceHandlers } from '../types.js';
import { linkResource } from './odata/payment-links.js';
import { odataBody } from './odata-list.js';
import { embedCode, linkChanges, linkPageUrl, paymentLinkView } from './views/payment-link.view.js';

const context = (deps: AppDeps) => ({ allowLoopbackWebhooks: deps.config.allowLoopbackWebhooks });

/** The merchant's operations on its payment links (x-api-key). */
export const paymentLinkHandlers: CommerceHandlers = {
  async listPaymentLinks({ db, deps, tenant, query }) {
    const compiled = compileQuery(linkResource, query);
    const page = await listLinks(db, tenant, compiled);
    return ok(odataBody(page, compiled, '/v1/PaymentLink', (link) => paymentLinkView(link, deps.config.publicBaseUrl)));
  },
  async createPaymentLink({ db, deps, tenant, body }) {
    const { link, generatedSecret } = await createLink(
      db,
      deps.clock,
      tenant,
      { ...linkChanges(body), name: body.name, currency: body.currencyCode },
      context(deps),
    );
    return created(paymentLinkView(link, deps.config.publicBaseUrl, generatedSecret));
  },
  async updatePaymentLink({ db, deps, tenant, path, body }) {
    const { link, generatedSecret } = await updateLinkFields(db, deps.clock, tenant, path.id, linkChanges(body), context(deps));
    return ok(paymentLinkView(link, deps.config.publicBaseUrl, generatedSecret));
  },
  async deletePaymentLink({ db, tenant, path }) {
    await removeLink(db, tenant, path.id);
    return noContent();
  },
  async activatePaymentLink({ db, deps, tenant, path }) {
    return ok(paymentLinkView(await activateLink(db, deps.clock, tenant, path.id), deps.config.publicBaseUrl));
  },
  async deactivatePaymentLink({ db, deps, tenant, path }) {
    return ok(paymentLinkView(await deactivateLink(db, deps.clock, tenant, path.id), deps.config.publicBaseUrl));
  },
  async getPaymentLinkEmbedCode({ db, deps, tenant, path }) {
    const link = await getLink(db, tenant, path.id);
    return ok({ embedCode: embedCode(link, deps.config.publicBaseUrl), paymentUrl: linkPageUrl(deps.config.publicBaseUrl, link) });
  },
};
