/* What one cpuid instruction (and one xgetbv) costs on this virtual machine, where cpuid traps
 * to the hypervisor: the gate-perf README's "about 6.5 us". cc -O2 cpuid.c && ./a.out */
#include <cpuid.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
int main(){unsigned a,b,c,d; for(int r=0;r<3;r++){double t=now(); for(int i=0;i<100;i++){__cpuid_count(7,0,a,b,c,d);} printf("cpuid: %.2f us each\n",(now()-t)/100);} 
double t=now(); for(int i=0;i<100;i++){unsigned lo,hi; __asm__ volatile("xgetbv":"=a"(lo),"=d"(hi):"c"(0));} printf("xgetbv: %.3f us each\n",(now()-t)/100); return 0;}
