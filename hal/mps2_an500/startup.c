/* Startup code for the ARM MPS2 AN500 board (Cortex-M7), as emulated by QEMU.
 * Vector table, reset handler (FPU enable, .data copy, .bss clear, static constructors),
 * and fault handlers that end the program with a distinct status. */
#include <stdint.h>

extern uint32_t __data_load_start__, __data_start__, __data_end__;
extern uint32_t __bss_start__, __bss_end__;
extern uint32_t __stack_top__, __stack_bottom__;
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

extern int main(void);
extern void beltsim_exit(int status) __attribute__((noreturn));

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));
void Default_Handler(void) __attribute__((noreturn));

/* Exit statuses of faults: distinct from test failures (1). */
enum { kStatusHardFault = 90, kStatusUnexpectedIrq = 91 };

void Reset_Handler(void) {
  /* Grant full access to coprocessors 10 and 11 (the FPU) before any floating-point code runs. */
  volatile uint32_t* const cpacr = (volatile uint32_t*)0xE000ED88u;
  *cpacr |= (0xFu << 20);
  __asm volatile("dsb\n\tisb" ::: "memory");

  const uint32_t* src = &__data_load_start__;
  for (uint32_t* dst = &__data_start__; dst < &__data_end__;) *dst++ = *src++;
  for (uint32_t* dst = &__bss_start__; dst < &__bss_end__;) *dst++ = 0u;
  /* Paint the unused stack below this frame (64 bytes of margin) for the high-water mark. */
  uint32_t* sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t* p = &__stack_bottom__; p < sp - 16;) *p++ = 0xA5A5A5A5u;

  const long count = __init_array_end - __init_array_start;
  for (long i = 0; i < count; ++i) __init_array_start[i]();

  beltsim_exit(main());
}

void Fault_Handler(void) { beltsim_exit(kStatusHardFault); }
void Default_Handler(void) { beltsim_exit(kStatusUnexpectedIrq); }

/* Handlers the HAL may override (SysTick, NMI from the watchdog) return normally. */
void Overridable_Handler(void) { beltsim_exit(kStatusUnexpectedIrq); }
void NMI_Handler(void) __attribute__((weak, alias("Overridable_Handler")));
void SysTick_Handler(void) __attribute__((weak, alias("Overridable_Handler")));
void PendSV_Handler(void) __attribute__((weak, noreturn, alias("Default_Handler")));
void SVC_Handler(void) __attribute__((weak, noreturn, alias("Default_Handler")));

/* Core exceptions only for now; the board's peripheral interrupts come with the real HAL. */
__attribute__((section(".isr_vector"), used)) void (*const g_vectorTable[16])(void) = {
    (void (*)(void))(&__stack_top__),
    Reset_Handler,
    NMI_Handler,
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0, 0, 0, 0,
    SVC_Handler,
    0, 0,
    PendSV_Handler,
    SysTick_Handler,
};
