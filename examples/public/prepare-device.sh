#!/usr/bin/env bash
# What the GPU machine's calls carry (the device tool's carry [".device", ".ext"]), built on this machine:
#   .device/  this tree's shaded jar, its commit (commit.txt) and a jlink runtime (the GPU machine has no Java)
#   .ext/     public training programs of other projects, copied from local git mirrors of them (fetched for reading,
#             never committed: .ext/ is in .gitignore, and in .git/info/exclude for older checkouts), as verify.sh reads
#             them: nanogpt (karpathy/nanoGPT), wlm (pytorch/examples word_language_model; where the mirror lacks its
#             train.txt, valid.txt and test.txt together stand in), ddp (distributed/ddp-tutorial-series), dcgan, gcn
# usage, from the repository root:
#   PYTORCH_EXAMPLES=MIRROR NANOGPT=MIRROR bash examples/public/prepare-device.sh   (either may be left out: no .ext for it)
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
cd "$repo"
mvn -B -ntp -q -f standalone/pom.xml package -DskipTests -Dspotless.check.skip=true -Dspotbugs.skip=true \
  -Dcheckstyle.skip=true
rm -rf .device && mkdir -p .device
cp standalone/target/gpu-sanitize.jar .device/
git rev-parse --short HEAD > .device/commit.txt
git diff --quiet HEAD || echo "(with uncommitted changes)" >> .device/commit.txt
jlink --add-modules java.base,java.xml,java.logging,java.management,jdk.unsupported --strip-debug --no-header-files \
  --no-man-pages --compress=2 --output .device/jre
exclude="$(git rev-parse --git-dir)/info/exclude"
mkdir -p "$(dirname "$exclude")"
grep -qx '.ext/' "$exclude" 2> /dev/null || echo '.ext/' >> "$exclude"
# files of a mirror's HEAD into .ext/NAME: show MIRROR NAME PATH...
show() {
  local mirror=$1 name=$2; shift 2
  mkdir -p ".ext/$name"
  for path in "$@"; do
    git -C "$mirror" show "HEAD:$path" > ".ext/$name/${path##*/}"
  done
}
if [ -n "${NANOGPT:-}" ]; then
  rm -rf .ext/nanogpt && mkdir -p .ext/nanogpt
  git -C "$NANOGPT" archive HEAD | tar -x -C .ext/nanogpt
fi
if [ -n "${PYTORCH_EXAMPLES:-}" ]; then
  rm -rf .ext/wlm .ext/ddp .ext/dcgan .ext/gcn
  # file by file: a mirror may lack a large blob (train.txt), which git archive refuses
  git -C "$PYTORCH_EXAMPLES" ls-tree -r --name-only HEAD word_language_model | while read -r path; do
    to=".ext/wlm/${path#word_language_model/}"
    mkdir -p "$(dirname "$to")"
    if git -C "$PYTORCH_EXAMPLES" cat-file -e "HEAD:$path" 2> /dev/null; then
      git -C "$PYTORCH_EXAMPLES" show "HEAD:$path" > "$to"
    fi
  done
  data=.ext/wlm/data/wikitext-2
  if [ ! -s "$data/train.txt" ]; then
    cat "$data/valid.txt" "$data/test.txt" > "$data/train.txt"
    echo "wlm: the mirror has no train.txt; valid.txt and test.txt together stand in" >&2
  fi
  show "$PYTORCH_EXAMPLES" ddp distributed/ddp-tutorial-series/multigpu_torchrun.py \
    distributed/ddp-tutorial-series/datautils.py
  show "$PYTORCH_EXAMPLES" dcgan dcgan/main.py
  show "$PYTORCH_EXAMPLES" gcn gcn/main.py gcn/requirements.txt
fi
du -sh .device .ext 2> /dev/null
