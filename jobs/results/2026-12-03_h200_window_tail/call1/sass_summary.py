import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; data = rows[2:]
ix = {h: i for i, h in enumerate(hdr)}
stalls = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot = sum(int(r[ix['Warp Stall Sampling (All Samples)']] or 0) for r in data)
print('total samples', tot, 'instructions', len(data))
mode = sys.argv[2] if len(sys.argv) > 2 else 'list'
thr = float(sys.argv[3]) if len(sys.argv) > 3 else 0.3
for n, r in enumerate(data):
    s = int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
    ex = r[ix['Instructions Executed']]
    if mode == 'list' or 100.0 * s / tot >= thr:
        top = sorted(((int(r[ix[h]] or 0), h[6:]) for h in stalls), reverse=True)[:2]
        print(f"{n:4d} {100.0*s/tot:5.1f}% ex={ex:>6} {r[ix['Source']].strip()[:60]:60s} " + ' '.join(f"{h}:{v}" for v, h in top if v))
