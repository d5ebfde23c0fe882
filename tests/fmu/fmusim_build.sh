# Sourced by the fmusim tests: builds fmusim 0.0.39 (../shared/tools/fmusim-0.0.39, beside the
# project) into WORK/fmusim once and sets $fmusim to its path, or exits 77 (CTest: skipped) where
# that tool folder is absent.   Usage: fmusim_build SOURCE_DIR WORK_DIR
fmusim_build() {
  local tool="$1/../shared/tools/fmusim-0.0.39/build.sh"
  if [[ ! -f "$tool" ]]; then
    echo "SKIPPED: $tool not found (fmusim, the outside importer, is a tool beside the project)"
    exit 77
  fi
  fmusim=$(bash "$tool" "$2/fmusim" | tail -1)
}
