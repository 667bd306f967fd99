'use strict';
// The operator's dashboard. Every read and every action goes through the server's HTTP API
// (POST /api/v1/<route>, the wire contract's routes and bodies); pages stay live through its
// server-sent event streams (the catalog, a service's watch, the audit trail), never by polling.

const TOKEN_KEY = 'reactive-registry.token';
/** The audit trail page keeps this many events (it opens on the newest the server kept); older ones scroll away. */
const TRACE_KEPT = 500;
/** A service's page shows this many of its latest changes, from the server's audit history. */
const SERVICE_HISTORY = 50;
/** A burst of changes reloads a listing once, at most this often: counts live within a second. */
const RELOAD_EVERY_MS = 1000;
/** Instance details (owner, last heartbeat) are re-read at most this often while a service changes. */
const DETAILS_EVERY_MS = 2000;
/**
 * Pushed events are applied at once but drawn at most this often: a service changing a hundred
 * times a second redraws its table four times a second, not a hundred.
 */
const DRAW_EVERY_MS = 250;

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.code ? body.code + ': ' + body.message : 'HTTP ' + status);
    this.status = status;
    this.code = body && body.code;
  }
}

/** The HTTP API, with the operator's token when one is set. */
const api = {
  headers(extra) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return Object.assign(token ? { Authorization: 'Bearer ' + token } : {}, extra || {});
  },
  async call(route, body) {
    const response = await fetch('/api/v1/' + route, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify(body || {}),
    });
    return this.answer(response);
  },
  async answer(response) {
    const text = await response.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch (e) {
      body = { code: 'HTTP_' + response.status, message: text };
    }
    if (!response.ok) {
      throw new ApiError(response.status, body);
    }
    return body;
  },
};

/**
 * A server-sent event stream, read with fetch rather than EventSource, which cannot send the
 * Authorization header. After a drop it reconnects, sending the last event's id, from which the
 * server resumes a watch within the history it keeps. A refusal (401, 403, 404) ends it.
 */
class EventStream {
  constructor(path, onEvent, onState) {
    this.path = path;
    this.onEvent = onEvent;
    this.onState = onState;
    this.closed = false;
    this.lastId = null;
    this.controller = null;
    this.run();
  }

  async run() {
    while (!this.closed) {
      this.controller = new AbortController();
      try {
        const headers = api.headers({ Accept: 'text/event-stream' });
        if (this.lastId) {
          headers['Last-Event-ID'] = this.lastId;
        }
        const response = await fetch(this.path, { headers, signal: this.controller.signal });
        if (!response.ok) {
          const refusal = await api.answer(response).catch(error => error);
          this.onState(false, refusal);
          if ([401, 403, 404].includes(response.status)) {
            return;
          }
        } else {
          this.onState(true, null);
          await this.read(response.body);
        }
      } catch (error) {
        if (this.closed) {
          return;
        }
      }
      this.onState(false, null);
      await new Promise(resolve => setTimeout(resolve, 1000));
    }
  }

  async read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let event = { type: 'message', data: [], id: null };
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this.closed) {
        return;
      }
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, '');
        buffer = buffer.slice(end + 1);
        if (line === '') {
          if (event.data.length > 0) {
            if (event.id) {
              this.lastId = event.id;
            }
            this.onEvent(event.type, JSON.parse(event.data.join('\n')));
          }
          event = { type: 'message', data: [], id: null };
        } else if (!line.startsWith(':')) { // a line starting with ':' is a keep-alive comment
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') {
            event.type = value;
          } else if (field === 'data') {
            event.data.push(value);
          } else if (field === 'id') {
            event.id = value;
          }
        }
      }
    }
  }

  close() {
    this.closed = true;
    if (this.controller) {
      this.controller.abort();
    }
  }
}

/** Runs {@code action} once after a burst of calls, at most every {@code ms}. */
function coalesced(action, ms) {
  let timer = null;
  return () => {
    if (timer === null) {
      timer = setTimeout(() => {
        forget(timer);
        timer = null;
        action();
      }, ms);
      // Cleared with the page's streams (closeAll): a reload of the page just left must not run on
      // the next one (it cleared that page's refusal banner, and asked the server for nothing shown).
      open.timers.push(timer);
    }
  };
}

/** A timer of the page that has fired: no longer to clear. */
function forget(timer) {
  const at = open.timers.indexOf(timer);
  if (at >= 0) {
    open.timers.splice(at, 1);
  }
}

/** "k=v" lines to a map; blank lines are skipped. */
function parseMetadata(text) {
  const metadata = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') {
      continue;
    }
    const equals = trimmed.indexOf('=');
    if (equals <= 0) {
      throw new Error('metadata: each line must be key=value, not "' + trimmed + '"');
    }
    metadata[trimmed.slice(0, equals).trim()] = trimmed.slice(equals + 1).trim();
  }
  return metadata;
}

/**
 * A number typed in a dialog. An empty field is refused here, naming it (the server would read it
 * as "not given" and keep the old value); anything else that is not a number is sent as typed, so
 * that the server refuses it naming the field and its rule, and changes nothing.
 */
function number(name, text) {
  if (String(text).trim() === '') {
    throw new Error(name + ': a number is required');
  }
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/** Prometheus's text format, as [{name, labels, value}]: enough for the server page's figures. */
function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) {
      continue;
    }
    const labels = {};
    for (const pair of (match[3] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2];
    }
    samples.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return samples;
}

function sumOf(samples, name, where) {
  return samples.filter(sample => sample.name === name && (!where || where(sample.labels)) && sample.value >= 0)
    .reduce((sum, sample) => sum + sample.value, 0);
}

function metadataLines(metadata) {
  return Object.entries(metadata || {}).map(([key, value]) => key + '=' + value).join('\n');
}

// What the page holds open (streams, timers) and what it folds events into between draws: outside
// Alpine's reactive state, whose proxies would wrap AbortController and break its methods, and
// would redraw on every event.
// generation: counts the pages opened, so that a page that awaited something sees it was left meanwhile.
const open = { streams: [], timers: [], view: {}, traced: [], catalog: null, generation: 0 };
/** Questions asked so far: each confirmation dialog's id. */
let questions = 0;

function closeAll() {
  open.streams.forEach(stream => stream.close());
  open.timers.forEach(timer => clearTimeout(timer)); // intervals and timeouts share their ids
  open.streams = [];
  open.timers = [];
  open.view = {};
  open.traced = [];
  open.catalog = null;
  open.generation++;
}

/** "1 service", "3 services". */
function counted(count, noun) {
  return count + ' ' + noun + (count === 1 ? '' : 's');
}

document.addEventListener('alpine:init', () => {
  Alpine.data('dashboard', () => ({
    page: 'services',
    error: '',
    live: false,
    liveNote: '',
    token: sessionStorage.getItem(TOKEN_KEY) !== null,
    now: Date.now(),
    services: { namespace: 'public', picked: false, group: '', prefix: '', health: '', page: 1, pageSize: 20, total: 0,
      rows: [], loaded: false },
    /** The namespaces that hold services and that the token may read (namespace.list), with their counts. */
    namespaces: [],
    service: { namespace: '', group: '', name: '', detail: null, rows: [], details: {}, revision: 0,
      protecting: false, deleted: false, history: [], subscribers: [] },
    connections: [],
    trace: { events: [], filter: '', namespace: '', group: '', service: '', paused: false, next: 0 },
    server: { info: null, readAt: 0, figures: null },
    asking: { id: 0, title: '', text: '', fields: [], confirm: 'Confirm', danger: false, resolve: null },

    init() {
      window.addEventListener('hashchange', () => this.route());
      setInterval(() => { this.now = Date.now(); }, 1000);
      this.route();
    },

    /** #/services, #/service/<namespace>/<group>/<service>, #/connections, #/trace, #/server. */
    route() {
      closeAll();
      this.error = '';
      this.liveNote = '';
      this.live = false;
      const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
      this.page = ['services', 'service', 'connections', 'trace', 'server'].includes(parts[0]) ? parts[0] : 'services';
      if (this.page === 'service' && parts.length === 4) {
        this.openService(parts[1], parts[2], parts[3]);
      } else if (this.page === 'service') {
        this.page = 'services';
      }
      if (this.page === 'services') {
        this.openServices();
      } else if (this.page === 'connections') {
        this.loadConnections();
        this.followTrace(null, coalesced(() => this.loadConnections(), RELOAD_EVERY_MS));
      } else if (this.page === 'trace') {
        this.openTrace();
      } else if (this.page === 'server') {
        this.loadServer();
        this.followTrace(null, coalesced(() => this.loadServer(), RELOAD_EVERY_MS));
      }
    },

    fail(error) {
      this.error = error.status === 401 ? 'The token was refused: ' + (error.message || String(error))
        : error.message || String(error);
      if (error.status === 401) {
        this.askToken();
      }
    },

    /**
     * A stream's state for the page: live, or refused (said once, in the banner), or down for a
     * moment. Once live again, what a refusal's banner said no longer holds: it goes.
     */
    streamState(live, refusal) {
      this.live = live;
      if (live) {
        this.error = '';
        this.liveNote = '';
      } else if (refusal) {
        this.fail(refusal);
      }
    },

    /**
     * A listing is reloaded when the audit trail shows a change; the trail needs the admin
     * permission, and without it the page says that it shows the state as of its last reload.
     */
    followTrace(namespace, changed) {
      const query = namespace ? '?namespace=' + encodeURIComponent(namespace) : '';
      open.streams.push(new EventStream('/api/v1/trace' + query, () => changed(), (live, refusal) => {
        this.live = live;
        if (live) {
          this.liveNote = '';
        } else if (refusal && refusal.status === 401) {
          this.fail(refusal); // the token itself: not a matter of permission
        } else if (refusal) {
          this.liveNote = 'Not live: following changes needs the admin permission (' + refusal.message
            + '). Shown as of ' + this.time(Date.now()) + '.';
        }
      }));
    },

    // --- services ---------------------------------------------------------------------------
    /**
     * The namespace's services (of the group and name prefix asked for) from its catalog stream
     * (GET /api/v1/catalog/...): a snapshot, then each service that appears, changes or goes, with
     * the read permission only. Paged here, in the order service.list uses (group, then name).
     */
    async openServices() {
      closeAll();
      const generation = open.generation;
      this.services.loaded = false;
      await this.loadNamespaces();
      if (generation !== open.generation) {
        return; // the page was left (or opened again) meanwhile
      }
      if (!this.services.picked && this.namespaces.length > 0
          && !this.namespaces.some(listed => listed.namespace === this.services.namespace)) {
        // Not picked by the operator, and empty or not theirs to read: the first one they may read instead.
        this.services.namespace = this.namespaces[0].namespace;
      }
      const catalog = new Map();
      open.catalog = catalog;
      const query = new URLSearchParams();
      if (this.services.group) {
        query.set('group', this.services.group);
      }
      if (this.services.prefix) {
        query.set('prefix', this.services.prefix);
      }
      const namespace = this.services.namespace || 'public';
      const path = '/api/v1/catalog/' + encodeURIComponent(namespace) + (query.toString() ? '?' + query : '');
      const draw = coalesced(() => this.loadServices(), DRAW_EVERY_MS);
      const recount = coalesced(() => this.loadNamespaces(), RELOAD_EVERY_MS); // the list's counts, live
      open.streams.push(new EventStream(path, (type, event) => {
        if (event.type === 'SNAPSHOT') {
          catalog.clear();
          event.services.forEach(summary => catalog.set(summary.group + '/' + summary.service, summary));
          this.error = '';
          this.loadServices(); // the first listing at once, later ones drawn together
          return;
        } else if (event.type === 'UPSERT') {
          catalog.set(event.service.group + '/' + event.service.service, event.service);
        } else if (event.type === 'REMOVE') {
          catalog.delete(event.group + '/' + event.name);
        }
        draw();
        recount();
      }, (live, refusal) => {
        if (refusal) {
          // Refused: nothing is known of the namespace, which is not the same as it being empty.
          this.services.loaded = false;
          this.services.rows = [];
          this.services.total = 0;
        }
        this.streamState(live, refusal);
      }));
    },

    /** The namespace list's choice: its services from the first page. */
    pickNamespace(namespace) {
      this.services.namespace = namespace;
      this.services.picked = true;
      this.services.page = 1;
      this.openServices();
    },

    /** Reads the namespace list again; refused, it is empty (the catalog's stream says why). */
    async loadNamespaces() {
      try {
        this.namespaces = (await api.call('namespace.list', {})).namespaces;
      } catch (error) {
        this.namespaces = [];
      }
    },

    /**
     * The namespace list: each namespace with its counts, and the one shown even when it is not
     * listed (it holds nothing, or the token may not read it: its name alone, no counts).
     */
    namespaceOptions() {
      const options = this.namespaces.map(listed => ({
        name: listed.namespace,
        label: listed.namespace + ' (' + counted(listed.services, 'service') + ', '
          + counted(listed.instances, 'instance')
          + (listed.healthyInstances < listed.instances ? ', ' + (listed.instances - listed.healthyInstances)
            + ' unhealthy' : '') + ')',
      }));
      if (!options.some(option => option.name === this.services.namespace)) {
        options.unshift({ name: this.services.namespace, label: this.services.namespace });
      }
      return options;
    },

    /** The page of the catalog asked for, from what the stream folded. */
    loadServices() {
      const shown = {
        '': () => true,
        unhealthy: summary => summary.healthyCount < summary.instanceCount,
        protecting: summary => summary.protectionTriggered,
      }[this.services.health || ''];
      const all = [...(open.catalog || new Map()).values()].filter(shown).sort((a, b) =>
        a.group < b.group ? -1 : a.group > b.group ? 1 : a.service < b.service ? -1 : a.service > b.service ? 1 : 0);
      this.services.total = all.length;
      this.services.page = Math.min(this.services.page, this.pages());
      const from = (this.services.page - 1) * this.services.pageSize;
      this.services.rows = all.slice(from, from + this.services.pageSize);
      this.services.loaded = true;
    },

    pages() {
      return Math.max(1, Math.ceil(this.services.total / this.services.pageSize));
    },

    serviceLink(row) {
      return '#/service/' + [row.namespace, row.group, row.service].map(encodeURIComponent).join('/');
    },

    async createService() {
      const answer = await this.ask({
        title: 'Create a service', text: 'A service created here stays, even empty, until it is deleted.',
        confirm: 'Create', fields: [
          { name: 'namespace', label: 'Namespace', value: this.services.namespace || 'public' },
          { name: 'group', label: 'Group', value: this.services.group || 'DEFAULT_GROUP' },
          { name: 'service', label: 'Name', value: '' },
          { name: 'type', label: 'Type', kind: 'select', options: ['ephemeral', 'persistent'], value: 'ephemeral' },
          { name: 'protectThreshold', label: 'Protect threshold (0 to 1)', kind: 'number', value: '0' },
          { name: 'metadata', label: 'Metadata (key=value, one per line)', kind: 'textarea', value: '' },
        ],
      });
      if (answer) {
        await this.act(() => api.call('admin.service.create', {
          namespace: answer.namespace, group: answer.group, service: answer.service,
          ephemeral: answer.type === 'ephemeral', protectThreshold: number('protectThreshold', answer.protectThreshold),
          metadata: parseMetadata(answer.metadata),
        }), () => this.loadServices());
      }
    },

    // --- one service ------------------------------------------------------------------------
    openService(namespace, group, name) {
      this.service = { namespace, group, name, detail: null, rows: [], details: {}, revision: 0,
        protecting: false, deleted: false, history: [], subscribers: [] };
      const ref = { namespace, group, service: name };
      this.loadServiceDetail(ref);
      const details = coalesced(() => {
        this.loadInstanceDetails(ref);
        this.loadServiceHistory(ref);
        this.loadSubscribers(ref);
      }, DETAILS_EVERY_MS);
      const draw = coalesced(() => this.drawInstances(), DRAW_EVERY_MS);
      // Coalesced: the page needs the view, not each step to it; a burst arrives as one BATCH.
      const path = '/api/v1/watch/' + [namespace, group, name].map(encodeURIComponent).join('/') + '?coalesce=true';
      open.streams.push(new EventStream(path, (type, event) => {
        this.fold(event);
        draw();
        details();
      }, (live, refusal) => {
        this.live = live;
        if (refusal) {
          this.fail(refusal);
        }
      }));
    },

    async loadServiceDetail(ref) {
      try {
        this.service.detail = await api.call('admin.service.get', ref);
      } catch (error) {
        // Without the admin permission the page still shows the live view, without the definition.
        if (error.status !== 403) {
          this.fail(error);
        }
      }
      this.loadInstanceDetails(ref);
      this.loadServiceHistory(ref);
      this.loadSubscribers(ref);
    },

    /** Who watches the service on this member: who an action on it reaches (admin permission). */
    async loadSubscribers(ref) {
      try {
        this.service.subscribers = (await api.call('admin.service.subscribers', ref)).subscribers;
      } catch (error) {
        if (error.status !== 403) {
          this.fail(error);
        }
      }
    },

    /** A watch's view, as it asked for it: clusters, healthy only, selector. */
    watchedView(watch) {
      const parts = [];
      if (watch.clusters) {
        parts.push('clusters ' + watch.clusters.join(', '));
      }
      if (watch.healthyOnly) {
        parts.push('healthy only');
      }
      if (watch.selector) {
        parts.push(watch.selector);
      }
      return parts.length ? parts.join('; ') : 'everything';
    },

    /** The service's latest changes, newest first, from the server's audit history (admin permission). */
    async loadServiceHistory(ref) {
      try {
        const answer = await api.call('admin.trace.query', Object.assign({ limit: SERVICE_HISTORY }, ref));
        this.service.history = answer.events.reverse();
      } catch (error) {
        if (error.status !== 403) {
          this.fail(error);
        }
      }
    },

    async loadInstanceDetails(ref) {
      try {
        const answer = await api.call('admin.service.instances', ref);
        const byId = {};
        answer.instances.forEach(detail => { byId[detail.instance.instanceId] = detail; });
        this.service.details = byId;
      } catch (error) {
        if (error.status !== 403 && error.status !== 404) {
          this.fail(error);
        }
      }
    },

    /** Applies one event of the watch to the view, as the contract's fold rule says. */
    fold(event) {
      switch (event.type) {
        case 'SNAPSHOT':
          open.view = Object.fromEntries(event.instances.map(instance => [instance.instanceId, instance]));
          this.service.protecting = !!event.protectionTriggered;
          this.service.deleted = false;
          break;
        case 'UPSERT':
          open.view[event.instance.instanceId] = event.instance;
          break;
        case 'REMOVE':
          delete open.view[event.instanceId];
          break;
        case 'SERVICE_DELETED':
          open.view = {};
          this.service.deleted = true;
          break;
        case 'BATCH':
          event.events.forEach(each => this.fold(each));
          break;
        default: // RESUMED: the missed events follow
          break;
      }
      if (event.revision > this.service.revision) {
        this.service.revision = event.revision;
      }
    },

    drawInstances() {
      this.service.rows = Object.values(open.view)
        .sort((a, b) => a.ip.localeCompare(b.ip) || a.port - b.port || a.cluster.localeCompare(b.cluster));
    },

    instanceRows() {
      return this.service.rows;
    },

    overridden(row, field) {
      const detail = this.service.details[row.instanceId];
      return !!(detail && detail.override && detail.override[field] !== null && detail.override[field] !== undefined);
    },

    overriddenKey(row, key) {
      const detail = this.service.details[row.instanceId];
      return !!(detail && detail.override && detail.override.metadata && key in detail.override.metadata);
    },

    owner(row) {
      const detail = this.service.details[row.instanceId];
      if (!row.ephemeral) {
        return 'persistent (health-checked)';
      }
      return detail ? (detail.owner || '') + (detail.connection ? ' #' + detail.connection : '') : '';
    },

    /** A persistent instance's last health check, as this member ran it: why, how long, how long ago. */
    lastCheck(row) {
      const detail = this.service.details[row.instanceId];
      const check = detail && detail.lastCheck;
      if (!check) {
        return '';
      }
      return check.reason + ' in ' + check.latencyMs + ' ms, at ' + this.time(check.time);
    },

    heartbeat(row) {
      const detail = this.service.details[row.instanceId];
      return detail && detail.lastHeartbeat ? this.time(detail.lastHeartbeat) : '';
    },

    instanceRef(row) {
      return { namespace: this.service.namespace, group: this.service.group, service: this.service.name,
        instance: { ip: row.ip, port: row.port, cluster: row.cluster } };
    },

    /** After an action on an instance: its override and owner at once, not at the next coalesced read. */
    instanceDetails() {
      return this.loadInstanceDetails({ namespace: this.service.namespace, group: this.service.group,
        service: this.service.name });
    },

    async toggle(row) {
      const enabling = !row.enabled;
      const answer = await this.ask({
        title: (enabling ? 'Enable ' : 'Disable ') + row.ip + ':' + row.port + '?',
        text: enabling ? 'Callers will send it traffic again.'
          : 'Callers stop sending it traffic; it stays registered. The override outlives re-registration.',
        confirm: enabling ? 'Enable' : 'Disable', danger: !enabling, fields: [],
      });
      if (answer) {
        await this.act(() => api.call('admin.instance.patch', Object.assign(this.instanceRef(row), { enabled: enabling })),
          () => this.instanceDetails());
      }
    },

    async reweigh(row) {
      const answer = await this.ask({
        title: 'Weight of ' + row.ip + ':' + row.port, text: 'Its share of traffic among the service\'s instances.',
        confirm: 'Set weight', fields: [{ name: 'weight', label: 'Weight', kind: 'number', value: String(row.weight) }],
      });
      if (answer) {
        await this.act(() => api.call('admin.instance.patch',
          Object.assign(this.instanceRef(row), { weight: number('weight', answer.weight) })), () => this.instanceDetails());
      }
    },

    async editMetadata(row) {
      const detail = this.service.details[row.instanceId];
      const current = (detail && detail.override && detail.override.metadata) || {};
      const answer = await this.ask({
        title: 'Metadata overrides of ' + row.ip + ':' + row.port,
        text: 'Now: ' + (metadataLines(row.metadata).replace(/\n/g, ', ') || 'none')
          + '. Keys set here replace what the instance registered; a key removed here stops being overridden.',
        confirm: 'Save', fields: [{ name: 'metadata', label: 'Overrides (key=value, one per line)', kind: 'textarea',
          value: metadataLines(current) }],
      });
      if (answer) {
        await this.act(() => {
          const wanted = parseMetadata(answer.metadata);
          const changes = Object.assign({}, wanted);
          Object.keys(current).filter(key => !(key in wanted)).forEach(key => { changes[key] = null; });
          return api.call('admin.instance.patch', Object.assign(this.instanceRef(row), { metadata: changes }));
        }, () => this.instanceDetails());
      }
    },

    async updateService() {
      const detail = this.service.detail || {};
      const answer = await this.ask({
        title: 'Edit ' + this.service.name, text: 'The fields given replace the service\'s own.', confirm: 'Save',
        fields: [
          { name: 'protectThreshold', label: 'Protect threshold (0 to 1)', kind: 'number',
            value: String(detail.protectThreshold || 0) },
          { name: 'metadata', label: 'Metadata (key=value, one per line)', kind: 'textarea',
            value: metadataLines(detail.metadata) },
        ],
      });
      if (answer) {
        const ref = { namespace: this.service.namespace, group: this.service.group, service: this.service.name };
        await this.act(() => api.call('admin.service.update', Object.assign({}, ref, {
          protectThreshold: number('protectThreshold', answer.protectThreshold), metadata: parseMetadata(answer.metadata) })),
        () => this.loadServiceDetail(ref));
      }
    },

    async deleteService() {
      const answer = await this.ask({
        title: 'Delete ' + this.service.name + '?', text: 'Only a service without instances can be deleted.',
        confirm: 'Delete', danger: true, fields: [],
      });
      if (answer) {
        await this.act(() => api.call('admin.service.delete',
          { namespace: this.service.namespace, group: this.service.group, service: this.service.name }),
        () => { location.hash = '#/services'; });
      }
    },

    // --- connections, trace, server ---------------------------------------------------------
    async loadConnections() {
      try {
        this.connections = (await api.call('admin.connections', {})).connections;
      } catch (error) {
        this.fail(error);
      }
    },

    /**
     * The audit trail: the newest changes the server kept (admin.trace.query), then each change as
     * it happens. The live stream is opened first and what it brings before the history arrives is
     * held back, so nothing falls between the two; what the history already has is skipped.
     */
    openTrace() {
      closeAll();
      this.trace.events = [];
      const filter = {};
      ['namespace', 'group', 'service'].filter(name => this.trace[name]).forEach(name => {
        filter[name] = this.trace[name];
      });
      const query = Object.entries(filter).map(([name, value]) => name + '=' + encodeURIComponent(value)).join('&');
      let shownUpTo = null; // the newest revision the history gave; null until it has arrived
      const draw = coalesced(() => {
        if (shownUpTo === null) {
          return;
        }
        const arrived = open.traced.filter(event => event.revision == null || event.revision > shownUpTo).reverse();
        open.traced = [];
        arrived.forEach(event => { event.key = this.trace.next++; });
        this.trace.events = arrived.concat(this.trace.events).slice(0, TRACE_KEPT);
      }, DRAW_EVERY_MS);
      open.streams.push(new EventStream('/api/v1/trace' + (query ? '?' + query : ''), (type, event) => {
        if (!this.trace.paused) {
          open.traced.push(event);
          draw();
        }
      }, (live, refusal) => {
        this.live = live;
        if (refusal) {
          this.fail(refusal);
        }
      }));
      api.call('admin.trace.query', Object.assign({ limit: TRACE_KEPT }, filter)).then(answer => {
        const kept = answer.events.reverse();
        kept.forEach(event => { event.key = this.trace.next++; });
        shownUpTo = kept.length ? kept[0].revision : 0;
        this.trace.events = kept;
        draw();
      }, error => {
        shownUpTo = 0; // the live part may still be allowed; the refusal is shown
        this.fail(error);
      });
    },

    /** An instance's changed fields, as "field: before → after", and the reason when the change has one. */
    changes(event) {
      const fields = (event.changes || []).map(change =>
        change.field + ': ' + (change.from ?? '–') + ' → ' + (change.to ?? '–')).join(', ');
      return event.reason ? fields + ' (' + event.reason + ')' : fields;
    },

    traceRows() {
      const filter = this.trace.filter.trim().toLowerCase();
      return filter === '' ? this.trace.events : this.trace.events.filter(event =>
        Object.values(event).some(value => value !== null && String(value).toLowerCase().includes(filter)));
    },

    async loadServer() {
      try {
        this.server.info = await api.call('server.info', {});
        this.server.readAt = Date.now();
      } catch (error) {
        this.fail(error);
      }
      this.loadFigures();
    },

    /**
     * Memory, connections and refusals from the server's own /metrics (any principal may read
     * them); the refusal rate is the change since the previous read.
     */
    async loadFigures() {
      try {
        const response = await fetch('/metrics', { headers: api.headers() });
        if (!response.ok) {
          return;
        }
        const metrics = parseMetrics(await response.text());
        const now = Date.now();
        const refusals = sumOf(metrics, 'registry_errors_total');
        const before = this.server.figures;
        this.server.figures = {
          heap: sumOf(metrics, 'jvm_memory_used_bytes', labels => labels.area === 'heap'),
          heapMax: sumOf(metrics, 'jvm_memory_max_bytes', labels => labels.area === 'heap'),
          direct: sumOf(metrics, 'jvm_buffer_memory_used_bytes', labels => labels.id === 'direct'),
          connections: sumOf(metrics, 'registry_connections'),
          requests: sumOf(metrics, 'registry_requests_seconds_count'),
          refusals,
          refusalsPerSecond: before && now > before.at ? Math.max(0, (refusals - before.refusals) * 1000 / (now - before.at))
            : null,
          at: now,
        };
      } catch (error) {
        // The figures are extra: the page stands without them.
      }
    },

    /** Self-preservation's figures, as server.info gives them, in words. */
    heartbeatFigures() {
      const h = this.server.info && this.server.info.heartbeats;
      if (!h) {
        return '';
      }
      const share = h.expectedPerMinute > 0 ? Math.round(100 * h.receivedPerMinute / h.expectedPerMinute) + ' %' : '–';
      return h.receivedPerMinute + ' of ' + h.expectedPerMinute + ' expected heartbeats a minute (' + share
        + '); turns on below ' + Math.round(100 * h.threshold) + ' %'
        + (h.enabled ? (h.judged ? '' : ' (too few instances to judge by)') : ' (disabled)');
    },

    megabytes(bytes) {
      return bytes == null ? '' : (bytes / (1024 * 1024)).toFixed(1) + ' MiB';
    },

    uptime() {
      if (!this.server.info) {
        return '';
      }
      const seconds = Math.floor((this.server.info.uptimeMs + this.now - this.server.readAt) / 1000);
      const days = Math.floor(seconds / 86400);
      const clock = new Date((seconds % 86400) * 1000).toISOString().slice(11, 19);
      return (days > 0 ? days + ' d ' : '') + clock;
    },

    members() {
      const info = this.server.info;
      if (!info) {
        return [];
      }
      if (info.cluster) {
        return info.cluster.members.map(member => ({ id: member.id, state: member.state,
          role: member.id === info.cluster.leader ? 'leader' : 'follower' }));
      }
      return info.members.map(id => ({ id, role: 'single node', state: 'UP' }));
    },

    // --- asking, acting, the token ------------------------------------------------------------
    /** Shows the confirmation dialog; its fields' values when confirmed, null when cancelled. */
    ask(question) {
      return new Promise(resolve => {
        // Each question's fields are keyed by its own id: inputs are made anew for it, never one of
        // the last question's reused, whose typing could land on the last question's values.
        this.asking = Object.assign({ confirm: 'Confirm', danger: false, fields: [] }, question,
          { resolve, id: ++questions });
        // Shown once Alpine has rendered this question's fields: before that the dialog holds the
        // last question's inputs, and what is typed into them is overwritten when they are rendered.
        this.$nextTick(() => this.$refs.ask.showModal());
      });
    },

    answer(confirmed) {
      const values = Object.fromEntries(this.asking.fields.map(field => [field.name, field.value]));
      this.$refs.ask.close();
      const resolve = this.asking.resolve;
      this.asking.resolve = null;
      if (resolve) {
        resolve(confirmed ? values : null);
      }
    },

    /** Runs an action; its refusal is shown, and what changed arrives through the page's stream. */
    async act(action, then) {
      try {
        this.error = '';
        await action();
        if (then) {
          await then();
        }
      } catch (error) {
        this.fail(error);
      }
    },

    async askToken() {
      const answer = await this.ask({
        title: 'Token', text: 'A token from the server\'s token file, or a signed one. It is kept for this tab only.',
        confirm: 'Use token', fields: [{ name: 'token', label: 'Bearer token', kind: 'password', value: '' }],
      });
      if (answer) {
        if (answer.token.trim() === '') {
          sessionStorage.removeItem(TOKEN_KEY);
        } else {
          sessionStorage.setItem(TOKEN_KEY, answer.token.trim());
        }
        this.token = sessionStorage.getItem(TOKEN_KEY) !== null;
        this.route();
      }
    },

    entries(map) {
      return Object.entries(map || {});
    },

    time(millis) {
      return millis ? new Date(millis).toLocaleTimeString() : '';
    },
  }));
});
