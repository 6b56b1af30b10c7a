// ESLint for the lab's browser code (make lint): ESLint's recommended rules on ES modules that run in
// the browser (static/, the components' scripts in ui/), and Node's globals for the unit tests of the
// pure modules (tests/js/, make check) and this file.
import js from "@eslint/js";
import globals from "globals";

export default [
  // static/plotly*.js are plotly.js builds copied in by the app (ui/plot.py), not the lab's code.
  {ignores: ["static/plotly*.js", ".venv/", "node_modules/"]},
  js.configs.recommended,
  {
    files: ["static/**/*.js", "ui/**/*.js"],
    languageOptions: {ecmaVersion: "latest", sourceType: "module", globals: globals.browser},
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: {ecmaVersion: "latest", sourceType: "module", globals: globals.node},
  },
];
