// Material for MkDocs' set-up of the page's storage (its partials/javascripts/base.html, written
// there inline), as a file so that the pages need no inline script (mkdocs.yml theme.custom_dir).
// The scope is the site's root: this file is at <root>/assets/javascripts/scope.js. Material's
// bundle reads these four globals.
var __md_scope = new URL("../..", document.currentScript.src);
var __md_hash = (text) => [...text].reduce((hash, c) => (hash << 5) - hash + c.charCodeAt(0), 0);
var __md_get = (key, storage = localStorage, scope = __md_scope) =>
  JSON.parse(storage.getItem(scope.pathname + "." + key));
var __md_set = (key, value, storage = localStorage, scope = __md_scope) => {
  try {
    storage.setItem(scope.pathname + "." + key, JSON.stringify(value));
  } catch (e) {
    // storage full or refused: the setting is not kept
  }
};
