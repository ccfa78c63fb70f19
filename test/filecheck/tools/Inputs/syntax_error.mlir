func.func @main() {
  %0 = tgr.relu %x :
}
