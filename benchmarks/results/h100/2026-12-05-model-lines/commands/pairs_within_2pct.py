import os, sys; sys.path.insert(0,'scripts')
D = os.environ.get('D3', '.')  # call 1's files
from membench import results as mr
def pair(pa, pb):
    a=mr.load(pa); b=mr.load(pb)
    ca, cb = mr.cases(a,b), mr.cases(b,a)
    out=[]
    for n in ca:
        if n not in cb or not ca[n].runs or not cb[n].runs: continue
        x,y=ca[n],cb[n]
        for m in ('bytes_per_second','latency_ns','updates_per_second'):
            vx,vy=x.median(m),y.median(m)
            if vx and vy:
                out.append((vy/vx if m!='latency_ns' else vx/vy, n, bool(x.doubts(2.0)), bool(y.doubts(2.0)))); break
    outside=[o for o in out if abs(o[0]-1)>0.02]
    both=[o for o in outside if o[2] and o[3]]
    one=[o for o in outside if o[2]!=o[3]]
    none=[o for o in outside if not o[2] and not o[3]]
    return len(out), len(out)-len(outside), len(both), len(one), none
for label,(x,y) in {'before -> after (before run first)':(D + '/default_before.json',D + '/default_after.json'),
                    'before2 -> after2 (after run first)':(D + '/default_before2.json',D + '/default_after2.json'),
                    'after -> after2 (one binary)':(D + '/default_after.json',D + '/default_after2.json'),
                    'before -> before2 (one binary)':(D + '/default_before.json',D + '/default_before2.json')}.items():
    n,w,b,o,none=pair(x,y)
    names = ", ".join("%.3f %s" % (r, c.replace("/manual_time", "")) for r, c, _, _ in none)
    print(f"| {label} | {n} | {w} | {b} | {o} | {len(none)}: {names} |")
