/* houkai dashboard: the score breakdown of recall hits, as data (no DOM).
 *
 * explainRows(explain) lists what made a hit's score: each weighted signal × its weight,
 * every stage boost (query, context, prf, specific, …; some are negative) and, when the
 * explanation does not account for all of it (the semantic polarity nudge), "other"; a
 * hybrid score past 0.9 folded back toward 1 shows the fold as a negative row; the rows
 * sum to explain.score. explainScale(explains) is the one scale every hit of a list
 * is drawn on, so an irrelevant hit's cosine bar is short: 1.0 for blended scores (a
 * contribution of 0.3 fills 30 % of the track), the largest contribution of the list for
 * RRF (whose contributions are ~1/60). Loaded before app.js; tests run it under node.
 */
(function (root) {
  "use strict";

  const SIGNALS = ["cosine", "lexical", "recency", "importance", "graph", "polarity"];
  const ALWAYS = new Set(["cosine", "lexical", "recency", "importance"]); // shown even at 0
  const EPSILON = 5e-4; // explain values are rounded to 6 digits

  function num(value) {
    return typeof value === "number" && isFinite(value) ? value : null;
  }

  function explainRows(explain) {
    if (!explain || typeof explain !== "object") return [];
    if (explain.rerank && num(explain.rerank.score) !== null) return [["rerank", explain.rerank.score]];
    const rows = [];
    if (explain.signals && Object.keys(explain.signals).length) {
      for (const [name, sig] of Object.entries(explain.signals)) {
        const value = num(sig && sig.contribution);
        if (value !== null) rows.push([name, value]);
      }
    } else {
      const weights = explain.weights || {};
      for (const key of SIGNALS) {
        const value = num(explain[key]);
        if (value === null) continue;
        const weight = num(weights[key]);
        if (weight === null && key !== "cosine") continue; // no weight given: not in the sum
        if (weight === 0) continue; // switched off for this recall
        const contribution = value * (weight === null ? 1 : weight);
        if (contribution !== 0 || ALWAYS.has(key)) rows.push([key, contribution]);
      }
    }
    for (const [name, value] of Object.entries(explain.stages || {})) {
      if (num(value) !== null && value !== 0) rows.push([name, value]);
    }
    const score = num(explain.score);
    const unbounded = num(explain.unbounded_score);
    if (score !== null && unbounded !== null) rows.push(["fold into [0, 1]", score - unbounded]);
    if (score !== null) {
      const rest = score - rows.reduce((sum, row) => sum + row[1], 0);
      if (Math.abs(rest) > EPSILON) rows.push(["other", rest]);
    }
    return rows;
  }

  function explainScale(explains) {
    const list = (explains || []).filter(Boolean);
    if (!list.some((e) => e.fusion === "rrf")) return 1;
    let max = 0;
    for (const e of list) for (const [, value] of explainRows(e)) max = Math.max(max, Math.abs(value));
    return max || 1;
  }

  const api = { explainRows, explainScale };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.houkaiExplain = api;
})(this);
