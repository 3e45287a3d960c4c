// The agent's own APIs, and nothing else. A 401 asks the person for the API token once, keeps it for the
// browser session and sends it as a bearer token from then on.
const TOKEN_KEY = "gpuwatch.token";

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

let asking = null; // one dialog for every request that met a 401 at the same time
function askForToken(message) {
  if (asking) return asking;
  const dialog = document.getElementById("token-dialog");
  const input = document.getElementById("token-input");
  document.getElementById("token-error").textContent = message;
  input.value = "";
  asking = new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        asking = null;
        if (dialog.returnValue === "ok" && input.value) {
          sessionStorage.setItem(TOKEN_KEY, input.value);
          resolve(true);
        } else {
          resolve(false);
        }
      },
      { once: true },
    );
    dialog.showModal();
  });
  return asking;
}

// Fetches `path` (params as a query string for GET, a form body otherwise; `json`, an object, as a JSON
// body) with the token when one was given; a 401 asks for one and tries again.
async function request(path, { method = "GET", params = {}, json } = {}) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) query.append(k, String(one));
  }
  for (let attempt = 0; ; ++attempt) {
    const headers = {};
    const t = token();
    if (t) headers.Authorization = `Bearer ${t}`;
    const init = { method, headers };
    let url = path;
    if (method === "GET") {
      if ([...query].length) url += `?${query}`;
    } else if (json !== undefined) {
      init.body = JSON.stringify(json);
      headers["Content-Type"] = "application/json";
    } else if ([...query].length) {
      init.body = query;
    }
    const res = await fetch(url, init);
    // 401: no token or (RFC 6750) a wrong one; the alerting API answers a wrong token 403 "wrong bearer token".
    const refused = res.status === 401 || (res.status === 403 && t && /token/.test(await res.clone().text()));
    if (refused && attempt < 3) {
      if (t) sessionStorage.removeItem(TOKEN_KEY);
      if (await askForToken(t ? "The agent refused that token." : "")) continue;
      throw new ApiError("an API token is needed", res.status);
    }
    return res;
  }
}

// The parsed JSON reply; throws ApiError with the agent's own message for an error reply.
export async function api(path, options) {
  const res = await request(path, options);
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiError(`${path}: ${res.status} ${text.slice(0, 200)}`, res.status);
  }
  if (!res.ok || (body && body.status === "error")) {
    throw new ApiError((body && body.error) || `${path}: HTTP ${res.status}`, res.status);
  }
  return body;
}

// A text reply (a runbook); null for 404.
export async function apiText(path) {
  const res = await request(path);
  if (res.status === 404) return null;
  if (!res.ok) throw new ApiError(`${path}: HTTP ${res.status}`, res.status);
  return res.text();
}

// A PromQL range query: the result matrix.
export async function queryRange(expr, start, end, step) {
  const r = await api("/api/v1/query_range", { params: { query: expr, start, end, step } });
  return r.data.result;
}

// A PromQL instant query: the result vector (or scalar).
export async function query(expr, time) {
  const params = { query: expr };
  if (time !== undefined) params.time = time;
  const r = await api("/api/v1/query", { params });
  return r.data.result;
}
