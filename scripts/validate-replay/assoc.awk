# The gawk program of scripts/validate-replay.sh: grows an associative array of 250 k strings,
# deletes half and doubles the rest, grows 5 000 strings a character at a time, then counts.
BEGIN {
  for (i = 0; i < 250000; i++) { k = "k" i "-" (i * 7919 % 100003); a[k] = sprintf("%s:%d", substr("abcdefghijklmnopqrstuvwxyz", 1 + i % 26), i) }
  n = 0
  for (k in a) { if (n++ % 2) delete a[k]; else a[k] = a[k] a[k] }
  for (i = 0; i < 100000; i++) { s = s ""; w[i % 5000] = w[i % 5000] "x" }
  m = split("", t); for (k in a) { t[length(a[k])]++ }
  print length(a), length(t)
}
