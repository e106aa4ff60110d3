// The building blocks of docs/fairness.md, written from that page alone (not from our Python):
// encodings (section 1), the DRBG (3), integers, shuffles and picks (4), canonical JSON and
// the hash chain (7).  Everything uses WebCrypto (crypto.subtle), so it runs in any modern
// browser, offline, with nothing fetched.  verify_fair.js walks an export with these.
(function (root) {
  "use strict";
  const subtle = root.crypto && root.crypto.subtle;
  const encoder = new TextEncoder();
  const SCHEME = "alley-poker/fair-deal/v1";

  function concat(parts) {
    const size = parts.reduce(function (sum, part) { return sum + part.length; }, 0);
    const out = new Uint8Array(size);
    let at = 0;
    parts.forEach(function (part) { out.set(part, at); at += part.length; });
    return out;
  }

  function uint32be(n) {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, n);
    return out;
  }

  function uint64be(n) {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, BigInt(n));
    return out;
  }

  // field(text) = uint32be(byte length of UTF-8(text)) || UTF-8(text)
  function field(text) {
    const bytes = encoder.encode(text);
    return concat([uint32be(bytes.length), bytes]);
  }

  function hex(bytes) {
    let out = "";
    for (let i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return out;
  }

  // Lowercase hex only (section 1); null when it is not hex of whole bytes.
  function fromHex(text) {
    if (typeof text !== "string" || text.length % 2 || !/^[0-9a-f]*$/.test(text)) return null;
    const out = new Uint8Array(text.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
    return out;
  }

  async function sha256(bytes) {
    return new Uint8Array(await subtle.digest("SHA-256", bytes));
  }

  async function hmacKey(keyBytes) {
    return subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  async function hmac(key, message) {
    return new Uint8Array(await subtle.sign("HMAC", key, message));
  }

  // Code point order, which is also the order of UTF-8 bytes (section 1's canonical order,
  // section 7's key order).  JavaScript's own "<" compares UTF-16 units, which differs for
  // characters beyond U+FFFF against U+E000..U+FFFF.
  function byCodePoint(a, b) {
    const x = Array.from(a), y = Array.from(b);
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
      const p = x[i].codePointAt(0), q = y[i].codePointAt(0);
      if (p !== q) return p < q ? -1 : 1;
    }
    return x.length === y.length ? 0 : (x.length < y.length ? -1 : 1);
  }

  function canonicalOrder(items) { return items.slice().sort(byCodePoint); }

  // A DRBG stream (section 3): block_i = HMAC(key, field(label) || uint64be(seq) || uint64be(i)),
  // read as uint32be words from its start.
  function Stream(key, label, seq) {
    this.key = key;
    this.domain = concat([field(label), uint64be(seq)]);
    this.block = 0;
    this.words = [];
  }

  Stream.prototype.more = async function () {
    // Four blocks at a time: a shuffle of 54 cards reads about 55 words (7 blocks).
    const blocks = await Promise.all([0, 1, 2, 3].map((k) =>
      hmac(this.key, concat([this.domain, uint64be(this.block + k)]))));
    this.block += 4;
    blocks.forEach((bytes) => {
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < 32; i += 4) this.words.push(view.getUint32(i));
    });
  };

  Stream.prototype.word = async function () {
    if (!this.words.length) await this.more();
    return this.words.shift();
  };

  // An integer in [0, n), 1 <= n <= 2^32, by rejection sampling (section 4).
  Stream.prototype.below = async function (n) {
    const span = 4294967296;
    const limit = span - (span % n);
    for (;;) {
      const x = await this.word();
      if (x < limit) return x % n;
    }
  };

  // Fisher-Yates from the end over the canonical order; a[0] is the top of the pile.
  Stream.prototype.shuffle = async function (cards) {
    const a = canonicalOrder(cards);
    for (let i = a.length - 1; i >= 1; i--) {
      const j = await this.below(i + 1);
      const t = a[i]; a[i] = a[j]; a[j] = t;
    }
    return a;
  };

  Stream.prototype.pick = async function (items) {
    const sorted = canonicalOrder(items);
    return sorted[await this.below(sorted.length)];
  };

  // key = HMAC(seed, field(scheme) || field(salt)); streams by label and seq.
  async function drbg(seedBytes, salt) {
    const key = await hmac(await hmacKey(seedBytes), concat([field(SCHEME), field(salt)]));
    const streamKey = await hmacKey(key);
    return { key: hex(key), stream: function (label, seq) { return new Stream(streamKey, label, seq); } };
  }

  // Canonical JSON (section 7): keys sorted by code point at every level, no spaces,
  // non-ASCII as itself, the usual escapes, integers in decimal.  JSON.stringify writes
  // strings exactly so ('"', '\', \b \f \n \r \t, other control characters as \u00xx).
  function canonicalJson(value) {
    if (value === null || typeof value === "boolean" || typeof value === "string") {
      return JSON.stringify(value);
    }
    if (typeof value === "number") {
      if (!Number.isSafeInteger(value)) throw new Error("a number that is not a whole number: " + value);
      return String(value);
    }
    if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
    const keys = Object.keys(value).sort(byCodePoint);
    return "{" + keys.map(function (k) {
      return JSON.stringify(k) + ":" + canonicalJson(value[k]);
    }).join(",") + "}";
  }

  const GENESIS = "0".repeat(64);

  // hash = hex(SHA-256(bytes(prev_hash) || canonical(record))), record = the exported event.
  async function linkHash(prevHex, record) {
    const canon = canonicalJson({ match_id: record.match_id, seq: record.seq, type: record.type,
                                  at: record.at, data: record.data });
    return hex(await sha256(concat([fromHex(prevHex), encoder.encode(canon)])));
  }

  const api = { SCHEME: SCHEME, GENESIS: GENESIS, field: field, hex: hex, fromHex: fromHex,
                sha256: sha256, drbg: drbg, byCodePoint: byCodePoint, canonicalOrder: canonicalOrder,
                canonicalJson: canonicalJson, linkHash: linkHash, encoder: encoder };
  root.AlleyFairCrypto = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
