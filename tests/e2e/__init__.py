"""Real-browser tests (Playwright + Debian Chromium against `streamlit run`)."""
