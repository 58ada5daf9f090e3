# The perl program of scripts/validate-replay.sh: builds a 350 k-key hash of array refs, rewrites
# and deletes half of it, then joins, sorts and splits the strings it made. Debian perl uses the
# system malloc (usemymalloc=n).
my %h; my @a;
for my $i (1..350000) { my $k = "key-$i-" . ($i * 7919 % 1000003); $h{$k} = [$i, "v" x ($i % 40)]; }
for my $i (1..350000) { my $k = "key-$i-" . ($i * 7919 % 1000003); push @a, $h{$k}[1] . $i if $i % 3; delete $h{$k} if $i % 2; }
my $s = join(",", sort @a); my @p = split /,/, $s; print scalar(@p), " ", scalar(keys %h), "\n";
